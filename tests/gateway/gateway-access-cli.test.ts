import { readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import type { RpcError } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { composeBackends, configFile } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * The access section in a running `mcpkit serve --http` (the built CLI, a real child
 * process): the audit file (0600, one line per call, reopened on SIGHUP after a rotation,
 * the process keeps serving), and a config edit that no longer parses: the policy fails
 * closed (nothing listed, calls refused, /healthz says so) until the file is fixed.
 */
const TOKEN = 'access-cli-token-0123456789abcdef';
const access = {
  rules: [{ subject: ['ci-bot'], servers: ['notes'], tools: ['read_*'] }],
  audit: { file: 'audit.log' },
};
// The static token's holder is "ci-bot": the rule above names it, audit lines say so.
const auth = { static: { subject: 'ci-bot' } };
const config = configFile({ auth, access });
const auditFile = path.join(path.dirname(config.file), 'audit.log');
let gateway: HttpGateway;
let client: McpClient;
beforeAll(async () => {
  const { notes } = composeBackends();
  gateway = await startHttpGateway({ notes }, ['--token', TOKEN, '--gateway-config', config.file]);
  client = new McpClient({ eraCache: false });
  await client.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      headers: { authorization: `Bearer ${TOKEN}` },
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close().catch(() => {});
  await gateway?.close();
  config.cleanup();
});

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');
const health = async () =>
  (await (
    await fetch(new URL('/healthz', gateway.url), {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
  ).json()) as { access?: { state: string; reason?: string } };

describe('mcpkit serve with an access section', () => {
  it('audits each call to a 0600 file and reopens it on SIGHUP (log rotation) without stopping', async () => {
    expect((await client.listTools({ fresh: true })).map((t) => t.name)).toEqual([
      'notes__read_note',
    ]);
    await client.callTool({ name: 'notes__read_note', arguments: { id: '1' } });
    const refused = await client.callTool({ name: 'notes__write' }).catch((e: RpcError) => e);
    expect((refused as RpcError).rpcCode).toBe(-32040);
    expect(statSync(auditFile).mode & 0o777).toBe(0o600);
    const first = lines(auditFile).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first.map((r) => [r.server, r.tool, r.outcome])).toEqual([
      ['notes', 'read_note', 'ok'],
      ['notes', 'write', 'refused'],
    ]);
    // The static token is one identity, with the subject the config gives it; the token
    // itself is never written.
    expect(first.map((r) => r.subject)).toEqual(['ci-bot', 'ci-bot']);
    expect(readFileSync(auditFile, 'utf8')).not.toContain(TOKEN);

    renameSync(auditFile, `${auditFile}.1`);
    gateway.child.kill('SIGHUP');
    await waitFor(() => gateway.stderr().includes('the audit file was reopened'), 'SIGHUP');
    await client.callTool({ name: 'notes__read_note', arguments: { id: '2' } });
    expect(lines(`${auditFile}.1`)).toHaveLength(2);
    expect(lines(auditFile).map((l) => (JSON.parse(l) as { tool: string }).tool)).toEqual([
      'read_note',
    ]);
    expect(statSync(auditFile).mode & 0o777).toBe(0o600);
    expect(gateway.child.exitCode).toBe(null);
  });

  it('a policy edit that does not parse fails closed until it is fixed; /healthz says so', async () => {
    config.writeText('{ "access": { "rules": [ { "servers": "notes" } ] } }');
    await waitFor(() => gateway.stderr().includes('every call is refused'), 'the refusal');
    expect((await health()).access?.state).toBe('refusing');
    expect(await client.listTools({ fresh: true })).toEqual([]);
    const refused = await client
      .callTool({ name: 'notes__read_note', arguments: { id: '3' } })
      .catch((e: RpcError) => e);
    expect((refused as RpcError).rpcCode).toBe(-32040);
    expect((refused as RpcError).data).toEqual({ reason: 'policy-unreadable' });

    // The last good text again: applied again, and the policy is back in force.
    config.write({ auth, access });
    await waitFor(() => gateway.stderr().includes('reloaded'), 'the reload');
    expect((await health()).access).toEqual({ state: 'ok' });
    expect(
      (await client.callTool({ name: 'notes__read_note', arguments: { id: '4' } })).isError,
    ).not.toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import {
  composeBackends,
  composeConfig,
  configFile,
  expectedTools,
  sorted,
} from './compose-support.js';
import { httpClient, type SdkClient, stdioClient } from './gateway-compose-clients.js';
import { gatewayArgs, type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * Editing the gateway config of a running `mcpkit serve` (the built CLI): the clients hear
 * `notifications/tools/list_changed` and list the new set; a broken edit keeps the last good
 * config and says where it is broken. No sleeps: each step waits for the notification or
 * the stderr line.
 */
const TOKEN = 'compose-reload-token-0123456789abcdef';
const config = configFile();
let gateway: HttpGateway;
const opened: SdkClient[] = [];
beforeAll(async () => {
  gateway = await startHttpGateway(composeBackends(), [
    '--token',
    TOKEN,
    '--gateway-config',
    config.file,
  ]);
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
  config.cleanup();
});

const at = (name?: string) => new URL(name ? `${gateway.url.href}/${name}` : gateway.url.href);
const edited = (change: (c: typeof composeConfig) => void) => {
  const next = structuredClone(composeConfig);
  change(next);
  return next;
};

describe('editing the gateway config of a running gateway (HTTP)', () => {
  it('adds and removes tools with list_changed (SDK v1 on an endpoint, SDK v2 on /mcp)', async () => {
    const teamB = await httpClient('v1', at('team-b'), TOKEN);
    const all = await httpClient('v2-legacy', at(), TOKEN);
    opened.push(teamB, all);
    expect(sorted(await teamB.listTools())).toEqual(expectedTools['team-b']);

    // team-b gets files' write too.
    let changed = teamB.nextToolsChanged();
    config.write(
      edited((c) => {
        c.endpoints['team-b'].tools.push({ server: 'files', tool: 'write' });
      }),
    );
    await changed;
    expect(sorted(await teamB.listTools())).toEqual(['fs__read_note', 'fs__write']);
    expect((await teamB.callTool('fs__write', { path: 'p', text: 't', root: 'r' })).text).toBe(
      'files write {"path":"p","text":"t","root":"r"}',
    );

    // notes' read_note excluded, and save_note renamed: /mcp hears it.
    changed = all.nextToolsChanged();
    config.write(
      edited((c) => {
        c.servers.notes.exclude.push('read_*');
        c.servers.notes.tools.write.name = 'keep_note';
      }),
    );
    await changed;
    expect(sorted(await all.listTools())).toEqual([
      'fs__delete_note',
      'fs__read_note',
      'fs__write',
      'keep_note',
    ]);
    const outcome = await all.callTool('notes__read_note', { id: '1' }).then(
      (r) => (r.isError ? r.text : `ran: ${r.text}`),
      (error: Error) => error.message,
    );
    expect(outcome).toContain('Unknown tool');
  });

  it('a broken edit keeps the last good config and names file, line and column', async () => {
    const all = await httpClient('v1', at(), TOKEN);
    opened.push(all);
    const before = sorted(await all.listTools());
    config.writeText('{\n  "servers": {\n    "notes": { "prefx": "n" }\n  }\n}\n');
    const line = await waitFor(
      () =>
        /not reloaded[^\n]*\n\s+(\S+:3:16: servers\.notes\.prefx: unknown key "prefx")/.exec(
          gateway.stderr(),
        )?.[1],
      'the reload error',
    );
    expect(line.startsWith(`${config.file}:`)).toBe(true);
    expect(sorted(await all.listTools())).toEqual(before);
  });

  it('an endpoint added by an edit is served, and one removed is gone', async () => {
    const all = await httpClient('v1', at(), TOKEN);
    opened.push(all);
    const reloads = () => gateway.stderr().split('reloaded').length;
    const seen = reloads();
    config.write(
      edited((c) => {
        (c.endpoints as Record<string, unknown>)['team-c'] = { servers: ['notes'] };
      }),
    );
    await waitFor(() => reloads() > seen, 'the reload');
    const teamC = await httpClient('v2-auto', at('team-c'), TOKEN);
    opened.push(teamC);
    expect(sorted(await teamC.listTools())).toEqual(expectedTools['team-a']);

    const again = reloads();
    config.write(composeConfig);
    await waitFor(() => reloads() > again, 'the second reload');
    const response = await fetch(at('team-c'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(404);
  });
});

describe('editing the gateway config of a running gateway (stdio)', () => {
  it('SDK v2 over stdio hears list_changed and lists the new set', async () => {
    const own = configFile();
    const { args, env, cleanup } = gatewayArgs(composeBackends(), [
      '--gateway-config',
      own.file,
      '--endpoint',
      'team-b',
    ]);
    const client = await stdioClient('v2-legacy', args, env);
    try {
      expect(sorted(await client.listTools())).toEqual(expectedTools['team-b']);
      const changed = client.nextToolsChanged();
      own.write(
        edited((c) => {
          c.endpoints['team-b'].tools = [{ server: 'files', tool: '*' }];
        }),
      );
      await changed;
      expect(sorted(await client.listTools())).toEqual([
        'fs__delete_note',
        'fs__read_note',
        'fs__write',
      ]);
    } finally {
      await client.close();
      cleanup();
      own.cleanup();
    }
  });
});

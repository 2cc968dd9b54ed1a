import { McpClient } from '@mcpkit/client';
import { RpcError } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { composeBackends, configFile } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * A gateway that runs without an access policy, whose config is then edited to add one that
 * does not check (a rule's `subject` a string, not a list): the policy being added cannot be
 * read, so the gateway fails closed, as it does for a policy already in force; it does not
 * stay open because the last good config had no policy. A valid file brings calls back. A
 * file that does not parse at all says nothing about a policy: the last good config stays.
 */
const config = configFile({});
let gateway: HttpGateway;
let client: McpClient;

beforeAll(async () => {
  gateway = await startHttpGateway(composeBackends(), ['--gateway-config', config.file]);
  client = new McpClient({ eraCache: false });
  await client.connect(new StreamableHttpTransport({ url: gateway.url, headers: gateway.headers }));
}, 60_000);
afterAll(async () => {
  await client?.close().catch(() => {});
  await gateway?.close();
  config.cleanup();
});

const callError = () =>
  client.callTool({ name: 'notes__read_note', arguments: { id: '1' } }).then(
    () => undefined,
    (error: unknown) =>
      RpcError.isInstance(error) ? { code: error.rpcCode, data: error.data } : error,
  );
const stderrCount = (text: string) => gateway.stderr().split(text).length - 1;

describe('adding an access policy that does not check', () => {
  it('fails closed until the file checks; a file that does not parse keeps the last good config', async () => {
    expect(await callError()).toBeUndefined();

    config.write({ access: { rules: [{ subject: 'alice', servers: ['notes'] }] } });
    await waitFor(
      () => stderrCount('every call is refused until it is fixed') >= 1 || undefined,
      'the fail-closed line',
    );
    expect(gateway.stderr()).toMatch(/access\.rules\[0\]\.subject/);
    expect(await callError()).toEqual({
      code: -32040,
      data: expect.objectContaining({ reason: 'policy-unreadable' }),
    });

    // Fixed (here: the policy left out again): served again.
    config.write({});
    await waitFor(() => stderrCount('reloaded') >= 1 || undefined, 'the reload');
    expect(await callError()).toBeUndefined();

    // Not JSON at all: nothing says a policy is in it; the last good config stays in force.
    config.writeText('{ "access": ');
    await waitFor(
      () => stderrCount('the last good one stays in force') >= 1 || undefined,
      'the not-reloaded line',
    );
    expect(await callError()).toBeUndefined();
  }, 60_000);
});

import { McpClient } from '@mcpkit/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { faultServer, gatewayArgs, gatewayStdio, resultText } from './gateway-process.js';

/**
 * A client's cancellation crosses the gateway: the backend's own request is cancelled
 * (`notifications/cancelled` with the backend's request id), over stdio, for our client
 * and the SDK v1 client. The gateway forwards a 2025-era call's cancellation without an
 * AbortSignal (`RequestContext.cancellation`); this is what shows it still arrives.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const servers = { slow: { command: process.execPath, args: [faultServer, 'cancel-log'] } };
const text = resultText;
/** What the backend saw: the ids it was asked to cancel, and calls still waiting. */
const backendLog = (result: unknown) =>
  JSON.parse(text(result)) as { cancelled: unknown[]; waiting: unknown[] };
/** One turn of the event loop: the request has been written to the gateway's stdin. */
const written = () => new Promise((resolve) => setImmediate(resolve));

describe('mcpkit serve: cancellation reaches the backend', () => {
  it('our client aborts a forwarded call: the backend gets notifications/cancelled for its request', async () => {
    const { args, env, cleanup } = gatewayArgs(servers);
    cleanups.push(cleanup);
    const client = new McpClient({ name: 'cancel', era: 'legacy', eraCache: false });
    await client.connect(gatewayStdio(args, env));
    cleanups.push(() => client.close());
    expect((await client.listTools()).map((t) => t.name)).toContain('slow__wait');

    for (let round = 1; round <= 2; round++) {
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow__wait' }, { signal: controller.signal });
      await written();
      controller.abort(new Error('the user pressed stop'));
      await expect(call).rejects.toThrow('the user pressed stop');
      // The cancellation went out before this call on the same pipe, so the backend has it.
      const log = backendLog(await client.callTool({ name: 'slow__cancelled' }));
      expect(log.cancelled).toHaveLength(round);
      expect(log.waiting).toEqual([]);
    }
  });

  it('the SDK v1 client aborts a forwarded call: the backend gets notifications/cancelled', async () => {
    const { args, env, cleanup } = gatewayArgs(servers);
    cleanups.push(cleanup);
    const client = new ClientV1({ name: 'cancel-v1', version: '1.0.0' });
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('slow__wait');

    const controller = new AbortController();
    const call = client.callTool({ name: 'slow__wait', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await written();
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow();
    const log = backendLog(await client.callTool({ name: 'slow__cancelled', arguments: {} }));
    expect(log.cancelled).toHaveLength(1);
    expect(log.waiting).toEqual([]);
  });
});

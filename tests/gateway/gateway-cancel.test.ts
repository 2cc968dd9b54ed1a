import { McpClient } from '@mcpkit/client';
import { StdioServerTransport as NdjsonPipe } from '@mcpkit/server';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport as NdjsonPipeV1 } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { faultServer, resultText } from './gateway-process.js';
import { type InProcessStdioGateway, startInProcessStdioGateway } from './in-process-gateway.js';

/**
 * A client's cancellation crosses `@mcpkit/gateway` (in-process, its stdio listener on a
 * pipe pair; each client speaks newline-delimited JSON on the pipes, through a stdio
 * transport's framing): the backend's own request is cancelled
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

async function gateway(): Promise<InProcessStdioGateway> {
  const started = await startInProcessStdioGateway(servers);
  cleanups.push(() => started.close());
  return started;
}

describe('@mcpkit/gateway over stdio: cancellation reaches the backend', () => {
  it('our client aborts a forwarded call: the backend gets notifications/cancelled for its request', async () => {
    const pipes = await gateway();
    const client = new McpClient({ name: 'cancel', era: 'legacy', eraCache: false });
    await client.connect(new NdjsonPipe({ stdin: pipes.fromGateway, stdout: pipes.toGateway }));
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
    const pipes = await gateway();
    const client = new ClientV1({ name: 'cancel-v1', version: '1.0.0' });
    await client.connect(new NdjsonPipeV1(pipes.fromGateway, pipes.toGateway));
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

import { createHook } from 'node:async_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpClient } from '@mcpkit/client';
import { ConnectionClosedError } from '@mcpkit/jsonrpc';
import { HttpFallbackTransport } from '@mcpkit/manager/http-fallback';
import { CrossOriginError, SseTransport } from '@mcpkit/transport-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp } from '../support/everything-http.js';
import { minimalMcpServer, startStreamableHttpServer } from '../support/streamable-http-server.js';

describe('legacy HTTP+SSE against server-everything', () => {
  let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    everything = await startEverythingHttp('sse');
  });
  afterAll(() => everything?.close());

  it('connects through the endpoint event, lists tools, calls get-sum, sends headers on GET and POST', async () => {
    const transport = new SseTransport({
      url: `${everything.base}/sse`,
      name: 'everything',
      headers: { 'x-trace': 'abc' },
    });
    const client = new McpClient({ name: 'everything' });
    await client.connect(transport);
    expect(transport.sessionEndpoint).toMatch(
      new RegExp(`^${everything.base}/message\\?sessionId=`),
    );
    expect((await client.listTools()).length).toBeGreaterThanOrEqual(13);
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum.content)).toMatch(/\b5\b/);
    await client.close();
  });

  it('the fallback tries Streamable HTTP first, then legacy SSE, and reports its choice', async () => {
    const choices: unknown[] = [];
    const transport = new HttpFallbackTransport({
      url: `${everything.base}/sse`,
      onchoice: (c) => choices.push(c),
    });
    const client = new McpClient();
    await client.connect(transport);
    expect(transport.chosen).toBe('sse');
    expect(choices).toEqual([
      { transport: 'sse', reason: expect.stringMatching(/answered with (400|404|405)/) },
    ]);
    expect((await client.listTools()).length).toBeGreaterThanOrEqual(13);
    await client.close();
  });
});

describe('fallback against a Streamable HTTP server', () => {
  it('keeps Streamable HTTP when the server speaks it', async () => {
    await using server = await startStreamableHttpServer({ setup: minimalMcpServer() });
    const transport = new HttpFallbackTransport({ url: server.url });
    const client = new McpClient();
    await client.connect(transport);
    expect(transport.chosen).toBe('streamable-http');
    expect(transport.sessionId).toBeTruthy();
    await client.close();
  });
});

/** A tiny legacy SSE server whose endpoint event is set by the test. */
async function sseServer(endpoint: (base: string) => string, closeAfterEndpoint = false) {
  const seen: Array<{ method: string; trace: unknown }> = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', trace: req.headers['x-trace'] });
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: endpoint\ndata: ${endpoint(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)}\n\n`,
      );
      if (closeAfterEndpoint) setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    res.writeHead(202).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    seen,
    url: `${base}/events`,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('legacy SSE endpoint handling', () => {
  it('a relative endpoint resolves against the stream URL; custom headers go on the GET and the POSTs', async () => {
    await using s = await sseServer(() => '/post?session=1');
    const t = new SseTransport({ url: s.url, headers: { 'x-trace': 'abc' } });
    await t.start();
    expect(t.sessionEndpoint).toBe(s.url.replace('/events', '/post?session=1'));
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(s.seen).toEqual([
      { method: 'GET', trace: 'abc' },
      { method: 'POST', trace: 'abc' },
    ]);
    await t.close();
  });

  it('an endpoint on another origin is refused', async () => {
    await using s = await sseServer(() => 'https://elsewhere.example/steal');
    const t = new SseTransport({ url: s.url, name: 'legacy' });
    const error = await t.start().catch((e: unknown) => e);
    expect(CrossOriginError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(
      `server "legacy": refusing https://elsewhere.example/steal from the endpoint event: it is not on the origin of the event stream ${s.url}`,
    );
  });

  it('a stream that drops and cannot come back closes the transport with the cause', async () => {
    await using s = await sseServer((b) => `${b}/post`, true);
    const reconnects: unknown[] = [];
    const t = new SseTransport({
      url: s.url,
      reconnect: { maxAttempts: 1, initialDelayMs: 10 },
      onreconnect: (e) => reconnects.push(e),
    });
    const closed = new Promise<Error | undefined>((resolve) => {
      t.onclose = resolve;
    });
    await t.start();
    // The server drops every stream right after the endpoint: the one reconnection drops too.
    const cause = await closed;
    expect(ConnectionClosedError.isInstance(cause)).toBe(true);
    expect(reconnects.length).toBe(1);
  });

  it('close() during the wait before a reconnection ends that wait: no timer outlives the transport', async () => {
    await using s = await sseServer((b) => `${b}/post`, true);
    // A wait no test would sit out: its timer must be cleared by close(), not left to fire.
    const waitMs = 600_000;
    const timers = new Map<number, () => void>();
    const cleared = new Promise<void>((resolve) => {
      const hook = createHook({
        init(asyncId, type, _trigger, resource) {
          if (type === 'Timeout' && (resource as { _idleTimeout?: number })._idleTimeout === waitMs)
            timers.set(asyncId, () => {
              hook.disable();
              resolve();
            });
        },
        destroy(asyncId) {
          timers.get(asyncId)?.();
        },
      });
      hook.enable();
    });
    let waiting!: () => void;
    const reconnecting = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const t = new SseTransport({
      url: s.url,
      reconnect: { maxAttempts: 1, initialDelayMs: waitMs, maxDelayMs: waitMs },
      onreconnect: () => waiting(),
    });
    await t.start();
    await reconnecting;
    expect(timers.size, 'the wait has begun').toBe(1);
    await t.close();
    // Resolves when the wait's timer is destroyed: cleared by close(). Before the fix the
    // SSE transport waited on a bare setTimeout that close() could not reach.
    await cleared;
  });
});

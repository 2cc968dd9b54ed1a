import type { AddressInfo } from 'node:net';
import { ConnectionClosedError, JsonRpcPeer, TransportError } from '@mcpkit/jsonrpc';
import { WebSocketClosedError, WebSocketTransport } from '@mcpkit/transport-websocket';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';

async function server(options: ConstructorParameters<typeof WebSocketServer>[0] = {}) {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    handleProtocols: (p) => (p.has('mcp') ? 'mcp' : false),
    ...options,
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  return {
    wss,
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`,
    async [Symbol.asyncDispose]() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}

describe('WebSocket transport', () => {
  it('sends the IDE auth token header and custom headers on the upgrade', async () => {
    await using s = await server();
    const seen = new Promise<Record<string, unknown>>((resolve) =>
      s.wss.once('connection', (_ws, req) => resolve(req.headers)),
    );
    const t = new WebSocketTransport({
      url: s.url,
      authToken: 'secret-token',
      headers: { 'X-Trace': 'abc' },
    });
    await t.start();
    const headers = await seen;
    expect(headers['x-mcp-ide-authorization']).toBe('secret-token');
    expect(headers['x-trace']).toBe('abc');
    expect(headers['sec-websocket-protocol']).toBe('mcp');
    await t.close();
  });

  it('a close code other than 1000 becomes a typed error saying what it means', async () => {
    await using s = await server();
    s.wss.on('connection', (ws) => setTimeout(() => ws.close(1011, 'database down'), 20));
    const t = new WebSocketTransport({ url: s.url, name: 'ide' });
    const peer = new JsonRpcPeer(t);
    const closed = new Promise<Error | undefined>((resolve) => {
      peer.onclose = resolve;
    });
    await peer.start();
    const pending = peer.request('hang');
    const cause = await closed;
    expect(cause).toBeInstanceOf(WebSocketClosedError);
    expect((cause as WebSocketClosedError).closeCode).toBe(1011);
    expect(cause!.message).toBe(
      'server "ide": WebSocket closed with code 1011 (server error): database down',
    );
    const error = await pending.catch((e: unknown) => e);
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('code 1011');
  });

  it('a peer that stops answering pings is declared dead and closed', async () => {
    await using s = await server({ autoPong: false });
    const t = new WebSocketTransport({
      url: s.url,
      name: 'ide',
      pingIntervalMs: 30,
      pongTimeoutMs: 60,
    });
    const closed = new Promise<Error | undefined>((resolve) => {
      t.onclose = resolve;
    });
    await t.start();
    const cause = await closed;
    expect(cause?.message).toBe('server "ide": no pong within 60 ms; the connection is dead');
  });

  it('a server that refuses the mcp subprotocol, or answers with HTTP, is refused with a clear error', async () => {
    await using noProtocol = await server({ handleProtocols: () => false });
    const a = await new WebSocketTransport({ url: noProtocol.url })
      .start()
      .catch((e: unknown) => e);
    expect(a).toBeInstanceOf(TransportError);
    await using http = await server({ verifyClient: () => false });
    const b = await new WebSocketTransport({ url: http.url, name: 'x' })
      .start()
      .catch((e: unknown) => e);
    expect((b as Error).message).toBe(
      `server "x": ${http.url} answered the WebSocket upgrade with HTTP 401`,
    );
  });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  AlreadyStartedError,
  ConnectionClosedError,
  JsonRpcPeer,
  MessageTooLargeError,
  ParseError,
  TransportError,
} from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { WebSocketClosedError, WebSocketTransport } from './index.js';

/**
 * The transport's own rules against a real `ws` server on 127.0.0.1: the upgrade's headers
 * and subprotocol, close codes, keep-alive, limits, and every way to close.
 */

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
    // Closes as the request arrives: the request is in flight when the close comes.
    s.wss.on('connection', (ws) => ws.on('message', () => ws.close(1011, 'database down')));
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

  it('a custom authTokenHeader carries the token instead of the IDE header', async () => {
    await using s = await server();
    const seen = new Promise<Record<string, unknown>>((resolve) =>
      s.wss.once('connection', (_ws, req) => resolve(req.headers)),
    );
    const t = new WebSocketTransport({ url: s.url, authToken: 'tok', authTokenHeader: 'X-Token' });
    await t.start();
    const headers = await seen;
    expect(headers['x-token']).toBe('tok');
    expect(headers['x-mcp-ide-authorization']).toBeUndefined();
    await t.close();
  });

  it('a frame that is not JSON, and a binary frame, are ParseErrors; the connection stays up', async () => {
    await using s = await server();
    s.wss.on('connection', (ws) => {
      ws.send('{not json');
      ws.send(Buffer.from([1, 2, 3]), { binary: true });
      ws.send('{"jsonrpc":"2.0","method":"after"}');
    });
    const t = new WebSocketTransport({ url: s.url, name: 'ide' });
    const errors: Error[] = [];
    t.onerror = (e) => errors.push(e);
    const after = new Promise((resolve) => {
      t.onmessage = resolve;
    });
    await t.start();
    expect(await after).toEqual({ jsonrpc: '2.0', method: 'after' });
    expect(errors.map((e) => [ParseError.isInstance(e), e.message])).toEqual([
      [true, 'server "ide": a frame is not JSON'],
      [true, 'server "ide": a binary frame was ignored (MCP uses text frames)'],
    ]);
    await t.close();
  });

  it('a frame over maxMessageBytes closes the connection with MessageTooLargeError', async () => {
    await using s = await server();
    s.wss.on('connection', (ws) => ws.send('x'.repeat(2048)));
    const t = new WebSocketTransport({ url: s.url, name: 'ide', maxMessageBytes: 1024 });
    const closed = new Promise<Error | undefined>((resolve) => {
      t.onclose = resolve;
    });
    await t.start();
    const cause = await closed;
    expect(MessageTooLargeError.isInstance(cause)).toBe(true);
    expect((cause as MessageTooLargeError).limitBytes).toBe(1024);
  });
});

describe('WebSocket transport close paths', () => {
  it('close() during the handshake: start() rejects with ConnectionClosedError and close() resolves', async () => {
    // A server that takes the upgrade request and never answers it.
    const http = createServer();
    let upgrading!: () => void;
    const upgradeArrived = new Promise<void>((r) => {
      upgrading = r;
    });
    // An upgraded socket leaves the server's books: it is ended here, by hand.
    const sockets: Duplex[] = [];
    http.on('upgrade', (_req, socket: Duplex) => {
      sockets.push(socket);
      upgrading();
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    try {
      const url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const t = new WebSocketTransport({ url, name: 'slow' });
      const starting = t.start().catch((e: unknown) => e);
      await upgradeArrived;
      await t.close();
      const error = await starting;
      expect(ConnectionClosedError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(`server "slow": closed while connecting to ${url}`);
      await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toSatisfy((e) =>
        ConnectionClosedError.isInstance(e),
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => http.close(r));
    }
  });

  it('double close: both resolve, onclose fires once with no cause, later sends fail', async () => {
    await using s = await server();
    const t = new WebSocketTransport({ url: s.url });
    const causes: Array<Error | undefined> = [];
    t.onclose = (cause) => causes.push(cause);
    await t.start();
    await Promise.all([t.close(), t.close()]);
    await t.close();
    expect(causes).toEqual([undefined]);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toSatisfy((e) =>
      ConnectionClosedError.isInstance(e),
    );
  });

  it('close() with a request in flight: the request fails with ConnectionClosedError, not a timeout', async () => {
    await using s = await server();
    const received = new Promise<void>((resolve) =>
      s.wss.on('connection', (ws) => ws.on('message', () => resolve())),
    );
    const peer = new JsonRpcPeer(new WebSocketTransport({ url: s.url }));
    await peer.start();
    const pending = peer.request('hang').catch((e: unknown) => e);
    await received;
    await peer.close();
    expect(ConnectionClosedError.isInstance(await pending)).toBe(true);
  });

  it('start() twice is AlreadyStartedError', async () => {
    await using s = await server();
    const t = new WebSocketTransport({ url: s.url });
    await t.start();
    await expect(t.start()).rejects.toSatisfy((e) => AlreadyStartedError.isInstance(e));
    await t.close();
  });
});

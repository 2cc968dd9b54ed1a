import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  ConnectionClosedError,
  HttpError,
  JsonRpcPeer,
  MessageTooLargeError,
  type Transport,
  TransportError,
} from '@mcpkit/jsonrpc';
import { MAX_ERROR_BODY_BYTES } from '@mcpkit/jsonrpc/internal';
import { SseTransport } from '@mcpkit/transport-sse';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { WebSocketTransport } from '@mcpkit/transport-websocket';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { startBodiesServer } from './servers/bodies-server.mjs';

const stdioServer = fileURLToPath(new URL('./servers/bodies-stdio.mjs', import.meta.url));

/**
 * Issue #10 finding 6: a remote server must not be able to make the client hold a body or
 * an event of any size. Each case runs a real transport against a real node:http server
 * that writes a huge (or endless) body only as fast as it is read; the client must fail
 * with a typed error, and the server must see the connection closed before its body ended.
 */

const LIMIT = 1024 * 1024;
const GiB = 1024 * 1024 * 1024;
const initialize = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'hostile-test', version: '1' },
};

function peerOver(transport: Transport) {
  const errors: Error[] = [];
  const peer = new JsonRpcPeer(transport);
  peer.onerror = (e) => errors.push(e);
  return { peer, errors };
}

function expectTooLarge(error: unknown, url: string) {
  expect(MessageTooLargeError.isInstance(error)).toBe(true);
  const e = error as MessageTooLargeError;
  expect(e.code).toBe('MCPKIT_MESSAGE_TOO_LARGE');
  expect(e.limitBytes).toBe(LIMIT);
  expect(e.serverName).toBe('evil');
  expect(e.url).toBe(url);
  expect(e.message).toContain('server "evil"');
  expect(e.message).toContain(`${LIMIT}-byte message limit`);
  // The advice is the application's: the message states the limit, not an option to raise.
  expect(e.message).not.toContain('maxMessageBytes');
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('hostile bodies: Streamable HTTP', () => {
  it('a 500 with a 1.5 GiB body: 4 KiB excerpt, the body is cancelled', async () => {
    await using server = await startBodiesServer();
    const url = `${server.baseUrl}/error-500`;
    const { peer } = peerOver(
      new StreamableHttpTransport({ url, name: 'evil', maxMessageBytes: LIMIT }),
    );
    await peer.start();
    const error = await rejection(peer.request('initialize', initialize));
    expect(HttpError.isInstance(error)).toBe(true);
    const e = error as HttpError;
    expect(e.status).toBe(500);
    expect(e.bodyExcerpt).toBe('x'.repeat(MAX_ERROR_BODY_BYTES));
    expect(e.message).toMatch(/^server "evil": POST .*error-500 → 500/);
    const sent = await (await server.response('error-500')).closed;
    expect(sent.finished).toBe(false);
    expect(sent.bytes).toBeLessThan(1.5 * GiB);
    await peer.close();
  });

  it('a 400 whose JSON error body never ends is cut at maxMessageBytes', async () => {
    await using server = await startBodiesServer();
    const url = `${server.baseUrl}/error-400-json`;
    const { peer } = peerOver(
      new StreamableHttpTransport({ url, name: 'evil', maxMessageBytes: LIMIT }),
    );
    await peer.start();
    const error = await rejection(peer.request('initialize', initialize));
    expectTooLarge(error, url);
    const sent = await (await server.response('error-400-json')).closed;
    expect(sent.finished).toBe(false);
    await peer.close();
  });

  it.each([
    ['huge-event', 'one 1 GiB SSE event'],
    ['endless-event', 'an SSE event that never ends'],
    ['json-length', 'a JSON body announced as 1 GiB (Content-Length)'],
    ['json-chunked', 'a 1 GiB JSON body without Content-Length'],
    ['endless-body', 'a JSON body that never ends'],
  ])('%s (%s): typed error while reading, the stream is cancelled', async (mode) => {
    await using server = await startBodiesServer();
    const url = `${server.baseUrl}/${mode}`;
    const { peer } = peerOver(
      new StreamableHttpTransport({ url, name: 'evil', maxMessageBytes: LIMIT }),
    );
    await peer.start();
    const error = await rejection(peer.request('initialize', initialize));
    expectTooLarge(error, url);
    const sent = await (await server.response(mode)).closed;
    expect(sent.finished).toBe(false);
    expect(sent.bytes).toBeLessThan(GiB);
    await peer.close();
  });

  it('an endless event on the standalone GET stream: reported, the stream closed, not re-opened', async () => {
    await using server = await startBodiesServer();
    const url = `${server.baseUrl}/standalone-event`;
    const transport = new StreamableHttpTransport({ url, name: 'evil', maxMessageBytes: LIMIT });
    const reported = new Promise<Error>((resolve) => {
      transport.onerror = resolve;
    });
    const peer = new JsonRpcPeer(transport);
    const reportedByPeer = new Promise<Error>((resolve) => {
      peer.onerror = resolve;
    });
    await peer.start();
    await peer.request('initialize', initialize);
    await peer.notify('notifications/initialized');
    const error = await Promise.race([reported, reportedByPeer]);
    expectTooLarge(error, url);
    const sent = await (await server.response('standalone-event')).closed;
    expect(sent.method).toBe('GET');
    expect(sent.finished).toBe(false);
    expect(server.responses.filter((r) => r.mode === 'standalone-event')).toHaveLength(1);
    await peer.close();
  });
});

describe('hostile bodies: legacy HTTP+SSE', () => {
  it('a 500 with a 1 GiB body on the GET: 4 KiB excerpt, the body is cancelled', async () => {
    await using server = await startBodiesServer();
    const transport = new SseTransport({
      url: `${server.baseUrl}/legacy-500/sse`,
      name: 'evil',
      maxMessageBytes: LIMIT,
    });
    const error = await rejection(transport.start());
    expect(HttpError.isInstance(error)).toBe(true);
    expect((error as HttpError).status).toBe(500);
    expect((error as HttpError).bodyExcerpt).toBe('x'.repeat(MAX_ERROR_BODY_BYTES));
    const sent = await (await server.response('legacy-500')).closed;
    expect(sent.finished).toBe(false);
  });

  it('a POST answered 500 with a 1.5 GiB body: 4 KiB excerpt, the body is cancelled', async () => {
    await using server = await startBodiesServer();
    const { peer } = peerOver(
      new SseTransport({
        url: `${server.baseUrl}/legacy-post-500/sse`,
        name: 'evil',
        maxMessageBytes: LIMIT,
      }),
    );
    await peer.start();
    const error = await rejection(peer.request('initialize', initialize));
    expect(HttpError.isInstance(error)).toBe(true);
    expect((error as HttpError).status).toBe(500);
    expect((error as HttpError).bodyExcerpt.length).toBe(MAX_ERROR_BODY_BYTES);
    const sent = await (await server.response('legacy-post-500')).closed;
    expect(sent.finished).toBe(false);
    await peer.close();
  });

  it('an event that never ends on the GET stream closes the transport with MessageTooLargeError', async () => {
    await using server = await startBodiesServer();
    const url = `${server.baseUrl}/legacy-event/sse`;
    const peer = new JsonRpcPeer(new SseTransport({ url, name: 'evil', maxMessageBytes: LIMIT }));
    const closed = new Promise<Error | undefined>((resolve) => {
      peer.onclose = resolve;
    });
    await peer.start();
    const error = await rejection(peer.request('initialize', initialize));
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expectTooLarge((error as Error).cause, url);
    expectTooLarge(await closed, url);
    const sent = await (await server.response('legacy-event')).closed;
    expect(sent.finished).toBe(false);
  });
});

describe('hostile bodies: WebSocket', () => {
  it('an upgrade refused with a 1 GiB body fails at once without reading the body', async () => {
    await using server = await startBodiesServer();
    const transport = new WebSocketTransport({
      url: `${server.baseUrl.replace('http', 'ws')}/ws-refuse`,
      name: 'evil',
      maxMessageBytes: LIMIT,
    });
    const error = await rejection(transport.start());
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toMatch(/answered the WebSocket upgrade with HTTP 500/);
    const sent = await (await server.response('ws-refuse')).closed;
    expect(sent.bytes).toBeLessThan(GiB);
  });

  it('a frame over maxMessageBytes closes the connection with MessageTooLargeError (ws maxPayload)', async () => {
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      handleProtocols: (p) => (p.has('mcp') ? 'mcp' : false),
    });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    try {
      const serverSaw = new Promise<number>((resolve) =>
        wss.once('connection', (socket) => {
          socket.on('close', (code) => resolve(code));
          socket.send(`{"jsonrpc":"2.0","method":"x","params":{"p":"${'x'.repeat(2 * LIMIT)}"}}`);
        }),
      );
      const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`;
      const peer = new JsonRpcPeer(
        new WebSocketTransport({ url, name: 'evil', maxMessageBytes: LIMIT }),
      );
      const closed = new Promise<Error | undefined>((resolve) => {
        peer.onclose = resolve;
      });
      await peer.start();
      expectTooLarge(await closed, url);
      // 1009: "message too big", sent by the client's ws as it refused the frame.
      expect(await serverSaw).toBe(1009);
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});

describe('hostile bodies: stdio', () => {
  it('a response line that never ends fails its request at once; nothing is buffered', async () => {
    const transport = new StdioTransport({
      command: process.execPath,
      args: [stdioServer],
      name: 'evil',
      maxMessageBytes: LIMIT,
    });
    const peer = new JsonRpcPeer(transport);
    await peer.start();
    const pid = transport.pid!;
    try {
      const error = await rejection(peer.request('initialize', initialize));
      expect(MessageTooLargeError.isInstance(error)).toBe(true);
      const e = error as MessageTooLargeError;
      expect(e.limitBytes).toBe(LIMIT);
      expect(e.id).toBe(1);
      expect(e.serverName).toBe('evil');
      expect(e.message).toMatch(
        /^server "evil": response to "initialize" dropped: server "evil": a message over the 1048576-byte limit/,
      );
    } finally {
      await peer.close();
    }
    // close() took the server down: it writes no more.
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

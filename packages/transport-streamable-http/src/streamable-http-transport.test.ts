import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConnectionClosedError,
  type JsonRpcMessage,
  ParseError,
  ResponseLostError,
} from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';
import { type ReconnectEvent, StreamableHttpTransport } from './index.js';

/**
 * The transport's own rules against a real node:http server on 127.0.0.1: which headers go
 * on which request, how dropped streams are re-opened (the wait is an injected `sleep`, so
 * the back-off is read, not waited for), and every way to close.
 */

interface Request {
  method: string;
  headers: IncomingHttpHeaders;
  /** The JSON-RPC message a POST carried. */
  message: (JsonRpcMessage & { id?: number; method?: string }) | undefined;
}

type Reply = (res: ServerResponse, req: Request, index: number) => void;

/** Answers each request with the reply for its method; records them all. */
async function mcpServer(replies: Partial<Record<'POST' | 'GET' | 'DELETE', Reply>>) {
  const requests: Request[] = [];
  const waiting: Array<{ method: string; arrived: (r: Request) => void }> = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString();
      const r: Request = {
        method: req.method!,
        headers: req.headers,
        message: text ? JSON.parse(text) : undefined,
      };
      requests.push(r);
      for (const w of waiting.filter((w) => w.method === r.method)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.arrived(r);
      }
      const reply = replies[r.method as 'POST'] ?? ((res) => res.writeHead(405).end());
      reply(res, r, requests.length - 1);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    requests,
    /** The next request of `method` to arrive. */
    next: (method: string) => new Promise<Request>((arrived) => waiting.push({ method, arrived })),
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    },
  };
}

const answer = (res: ServerResponse, req: Request, headers: Record<string, string> = {}) =>
  res
    .writeHead(200, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', id: req.message?.id, result: {} }));
/** Starts an event stream with `text` on it, and returns the response to end it or not. */
function events(res: ServerResponse, text: string): ServerResponse {
  res.writeHead(200, { 'content-type': 'text/event-stream' }).write(text);
  return res;
}
const ping = (id: number): JsonRpcMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

/** A test clock: each wait is recorded and over at once. */
function recordedWaits() {
  const delays: number[] = [];
  return { delays, sleep: async (delayMs: number) => void delays.push(delayMs) };
}

describe('StreamableHttpTransport headers', () => {
  it('MCP-Protocol-Version once set; Mcp-Session-Id from the initialize answer on every later request and on the DELETE', async () => {
    await using server = await mcpServer({
      POST: (res, req) =>
        req.message?.method === 'initialize'
          ? answer(res, req, { 'mcp-session-id': 'session-1' })
          : req.message?.id === undefined
            ? res.writeHead(202).end()
            : answer(res, req),
      DELETE: (res) => res.writeHead(204).end(),
    });
    const t = new StreamableHttpTransport({ url: server.url, openStandaloneStream: false });
    await t.start();
    await t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    t.setProtocolVersion('2025-06-18');
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await t.send(ping(2));
    await t.close();
    // A second transport: its session forgotten, the version still goes.
    const other = new StreamableHttpTransport({ url: server.url, sessionId: 'gone' });
    await other.start();
    other.setProtocolVersion('2025-03-26');
    other.resetSession();
    await other.send(ping(3));
    await other.close();
    expect(
      server.requests.map((r) => [
        r.method,
        r.headers['mcp-session-id'],
        r.headers['mcp-protocol-version'],
      ]),
    ).toEqual([
      ['POST', undefined, undefined],
      ['POST', 'session-1', '2025-06-18'],
      ['POST', 'session-1', '2025-06-18'],
      ['DELETE', 'session-1', '2025-06-18'],
      ['POST', undefined, '2025-03-26'],
    ]);
    expect(server.requests[0]!.headers.accept).toBe('application/json, text/event-stream');
  });

  it('the auth hook is asked for every POST, GET and DELETE with its method and URL; its headers win over static ones', async () => {
    await using server = await mcpServer({
      POST: (res, req) =>
        req.message?.id === undefined
          ? res.writeHead(202).end()
          : answer(res, req, { 'mcp-session-id': 's' }),
      GET: (res) => res.writeHead(405).end(),
      DELETE: (res) => res.writeHead(204).end(),
    });
    const asked: unknown[] = [];
    const t = new StreamableHttpTransport({
      url: server.url,
      headers: { authorization: 'static', 'x-static': '1' },
      auth: {
        headers: (request) => {
          asked.push(request);
          return { authorization: 'Bearer hook' };
        },
        onUnauthorized: () => false,
      },
    });
    await t.start();
    await t.send(ping(1));
    const get = server.next('GET');
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await get;
    await t.close();
    expect(asked).toEqual(
      ['POST', 'POST', 'GET', 'DELETE'].map((method) => ({ method, url: server.url })),
    );
    for (const r of server.requests) {
      expect(r.headers.authorization).toBe('Bearer hook');
      expect(r.headers['x-static']).toBe('1');
    }
  });

  it('a JSON answer that is not JSON is a ParseError naming the server', async () => {
    await using server = await mcpServer({
      POST: (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{nope'),
    });
    const t = new StreamableHttpTransport({ url: server.url, name: 'broken' });
    const errors: Error[] = [];
    t.onerror = (e) => errors.push(e);
    await t.start();
    await t.send(ping(1));
    await t.close();
    expect(errors).toHaveLength(1);
    expect(ParseError.isInstance(errors[0])).toBe(true);
    expect(errors[0]!.message).toBe('server "broken": the response body is not JSON');
  });
});

describe('StreamableHttpTransport resumption and back-off', () => {
  it('a dropped response stream is resumed by a GET with Last-Event-ID after the policy’s wait', async () => {
    await using server = await mcpServer({
      // A priming event with an id, then the stream drops before the answer.
      POST: (res) => events(res, 'id: e-1\ndata:\n\n').end(),
      GET: (res, req) =>
        events(
          res,
          `id: e-2\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resumed: req.headers['last-event-id'] } })}\n\n`,
        ).end(),
    });
    const clock = recordedWaits();
    const reconnects: ReconnectEvent[] = [];
    const t = new StreamableHttpTransport({
      url: server.url,
      reconnect: { initialDelayMs: 250 },
      onreconnect: (e) => reconnects.push(e),
      sleep: clock.sleep,
    });
    const replies: JsonRpcMessage[] = [];
    t.onmessage = (m) => replies.push(m);
    await t.start();
    await t.send(ping(1));
    await t.close();
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 1, result: { resumed: 'e-1' } }]);
    expect(clock.delays).toEqual([250]);
    expect(reconnects).toEqual([
      expect.objectContaining({ stream: 'response', attempt: 1, delayMs: 250, lastEventId: 'e-1' }),
    ]);
  });

  it('resumption backs off by the growth factor up to maxDelayMs, then gives up with ConnectionClosedError', async () => {
    await using server = await mcpServer({
      POST: (res) => events(res, 'id: e-1\ndata:\n\n').end(),
      GET: (res) => events(res, '').end(),
    });
    const clock = recordedWaits();
    const t = new StreamableHttpTransport({
      url: server.url,
      reconnect: { initialDelayMs: 100, growthFactor: 4, maxDelayMs: 1000, maxAttempts: 3 },
      sleep: clock.sleep,
    });
    await t.start();
    const error = await t.send(ping(1)).catch((e: unknown) => e);
    await t.close();
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('gave up resuming after 3 attempts');
    expect(clock.delays).toEqual([100, 400, 1000]);
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
  });

  it("the server's retry field sets the wait, but never past maxDelayMs", async () => {
    await using server = await mcpServer({
      POST: (res) => events(res, 'retry: 86400000\nid: e-1\ndata:\n\n').end(),
      GET: (res) => events(res, `data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n`).end(),
    });
    const clock = recordedWaits();
    const t = new StreamableHttpTransport({
      url: server.url,
      reconnect: { maxDelayMs: 2000 },
      sleep: clock.sleep,
    });
    await t.start();
    await t.send(ping(1));
    await t.close();
    expect(clock.delays).toEqual([2000]);
  });

  it('2026-07-28: a dropped response stream is ResponseLostError at once; nothing is re-opened', async () => {
    await using server = await mcpServer({
      POST: (res) => events(res, 'id: e-1\ndata:\n\n').end(),
    });
    const clock = recordedWaits();
    const t = new StreamableHttpTransport({ url: server.url, sleep: clock.sleep });
    await t.start();
    t.setProtocolVersion('2026-07-28');
    const error = await t.send(ping(1)).catch((e: unknown) => e);
    await t.close();
    expect(ResponseLostError.isInstance(error)).toBe(true);
    expect(clock.delays).toEqual([]);
    expect(server.requests.map((r) => r.method)).toEqual(['POST']);
  });

  it('the standalone stream is re-opened after drops, its count reset by a delivered message, then given up with an error', async () => {
    let gets = 0;
    await using server = await mcpServer({
      POST: (res) => res.writeHead(202).end(),
      // The second stream delivers a notification; every stream then ends.
      GET: (res) => {
        gets++;
        events(
          res,
          gets === 2 ? 'data: {"jsonrpc":"2.0","method":"notifications/x"}\n\n' : '',
        ).end();
      },
    });
    const clock = recordedWaits();
    const t = new StreamableHttpTransport({
      url: server.url,
      reconnect: { initialDelayMs: 10, growthFactor: 2, maxAttempts: 2 },
      sleep: clock.sleep,
    });
    const gaveUp = new Promise<Error>((resolve) => {
      t.onerror = resolve;
    });
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const error = await gaveUp;
    await t.close();
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expect(error.message).toContain('standalone stream lost');
    // Drop 1: wait 10. Drop 2 (it delivered): count reset, wait 10 again. Then 20, then done.
    expect(clock.delays).toEqual([10, 10, 20]);
    expect(gets).toBe(4);
  });
});

describe('StreamableHttpTransport close paths', () => {
  it('close() during the wait before a resumption aborts the wait; the send settles and no GET follows', async () => {
    await using server = await mcpServer({
      POST: (res) => events(res, 'id: e-1\ndata:\n\n').end(),
    });
    let began!: (signal: AbortSignal) => void;
    const waiting = new Promise<AbortSignal>((r) => {
      began = r;
    });
    const t = new StreamableHttpTransport({
      url: server.url,
      // A wait that only an abort ends.
      sleep: (_ms, signal) => {
        began(signal);
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
      },
    });
    await t.start();
    const sending = t.send(ping(1));
    const signal = await waiting;
    await t.close();
    expect(signal.aborted).toBe(true);
    await sending;
    expect(server.requests.map((r) => r.method)).toEqual(['POST']);
  });

  it('close() with a request in flight ends its stream; the send settles, onclose fires once', async () => {
    await using server = await mcpServer({
      POST: (res) => events(res, ': working\n\n'),
    });
    const t = new StreamableHttpTransport({ url: server.url });
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    const posted = server.next('POST');
    const sending = t.send(ping(1));
    await posted;
    await Promise.all([t.close(), t.close()]);
    await sending;
    expect(closes).toBe(1);
  });

  it('close() lets a notification already being posted finish (a cancellation sent just before closing reaches the server)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The server refuses the notification (400): a send that rejects with that status
    // shows its answer was read, not cut off by the close (an aborted POST settles quietly).
    await using server = await mcpServer({
      POST: (res) => void held.then(() => res.writeHead(400).end('no')),
    });
    const t = new StreamableHttpTransport({ url: server.url, openStandaloneStream: false });
    await t.start();
    const posted = server.next('POST');
    const cancelled = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7 },
    };
    const sent = t.send(cancelled as JsonRpcMessage);
    expect((await posted).message?.method).toBe('notifications/cancelled');
    const closing = t.close();
    release();
    // Before, close() aborted the POST at once and this send settled without an answer.
    await expect(sent).rejects.toMatchObject({ status: 400 });
    await closing;
  });

  it('close() waits at most closeFlushMs for a notification POST the server never answers (0: not at all); the send settles', async () => {
    await using server = await mcpServer({ POST: () => {} });
    for (const closeFlushMs of [50, 0]) {
      const t = new StreamableHttpTransport({
        url: server.url,
        openStandaloneStream: false,
        closeFlushMs,
      });
      await t.start();
      const posted = server.next('POST');
      const sent = t.send({ jsonrpc: '2.0', method: 'notifications/progress' } as JsonRpcMessage);
      await posted;
      await t.close();
      await expect(sent).resolves.toBeUndefined();
    }
    expect(() => new StreamableHttpTransport({ url: server.url, closeFlushMs: -1 })).toThrow(
      /closeFlushMs/,
    );
  });

  it('double close sends one DELETE; send before start and after close is ConnectionClosedError', async () => {
    await using server = await mcpServer({
      POST: (res, req) => answer(res, req, { 'mcp-session-id': 's-9' }),
      DELETE: (res) => res.writeHead(204).end(),
    });
    const t = new StreamableHttpTransport({ url: server.url, openStandaloneStream: false });
    await expect(t.send(ping(1))).rejects.toThrow(/not started/);
    await t.start();
    await t.send(ping(2));
    await t.close();
    await t.close();
    const after = await t.send(ping(3)).catch((e: unknown) => e);
    expect(ConnectionClosedError.isInstance(after)).toBe(true);
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'DELETE']);
  });

  it('resetSession() ends the standalone stream of the old session; no retry under the next one', async () => {
    let ended!: () => void;
    const streamEnded = new Promise<void>((r) => {
      ended = r;
    });
    await using server = await mcpServer({
      POST: (res) => res.writeHead(202).end(),
      GET: (res) => events(res, ': open\n\n').on('close', ended),
    });
    const clock = recordedWaits();
    const t = new StreamableHttpTransport({
      url: server.url,
      sessionId: 'old',
      sleep: clock.sleep,
    });
    await t.start();
    const opened = server.next('GET');
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await opened).headers['mcp-session-id']).toBe('old');
    t.resetSession();
    expect(t.sessionId).toBeUndefined();
    // Seen by the server while the transport is still open.
    await streamEnded;
    await t.close();
    expect(clock.delays).toEqual([]);
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConnectionClosedError,
  type HttpAuth,
  type HttpAuthChallenge,
  HttpError,
  type JsonRpcMessage,
  ParseError,
} from '@mcpkit/jsonrpc';
import { afterEach, describe, expect, it } from 'vitest';
import { CrossOriginError, MAX_SSE_REDIRECTS, SseTransport } from './index.js';

/**
 * The SSE transport's own rules against real node:http servers on 127.0.0.1: headers, the
 * endpoint and redirect origin rule, reconnection and its back-off, and every way to close.
 * Time is the test's: the transport's `sleep` is injected, so no test waits on a timer.
 */

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

/** A server on 127.0.0.1 that records each request, then hands it to `handle`. */
async function serve(handle: (req: Seen, res: ServerResponse, count: number) => void) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const s = { method: req.method!, path: req.url!, headers: req.headers, body };
    seen.push(s);
    handle(s, res, seen.length - 1);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Opens an event stream and sends `events` (raw SSE text) on it; the stream stays open. */
const stream = (res: ServerResponse, events: string) =>
  res.writeHead(200, { 'content-type': 'text/event-stream' }).write(events);
const endpointEvent = (path: string) => `event: endpoint\ndata: ${path}\n\n`;

/** A `sleep` that records each wait and returns at once: back-off without waiting. */
function instantSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

/** Resolves with the cause the transport closed with. */
const closedWith = (t: SseTransport) =>
  new Promise<Error | undefined>((resolve) => {
    t.onclose = resolve;
  });

describe('SseTransport headers', () => {
  it("static headers and the auth hook's go on the GET and every POST; the hook learns each method and URL", async () => {
    const s = await serve((req, res) => {
      if (req.method === 'GET') return stream(res, endpointEvent('/messages?session=1'));
      res.writeHead(202).end();
    });
    const asked: Array<{ method: string; url: string } | undefined> = [];
    const auth: HttpAuth = {
      headers: (request) => {
        asked.push(request);
        return { authorization: 'Bearer t-1' };
      },
      onUnauthorized: () => false,
    };
    const t = new SseTransport({ url: `${s.origin}/sse`, headers: { 'x-static': 'yes' }, auth });
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await t.close();
    const [get, post] = s.seen;
    expect(get!.headers).toMatchObject({
      'x-static': 'yes',
      authorization: 'Bearer t-1',
      accept: 'text/event-stream',
    });
    expect(post!.headers).toMatchObject({
      'x-static': 'yes',
      authorization: 'Bearer t-1',
      'content-type': 'application/json',
    });
    expect(post!.path).toBe('/messages?session=1');
    expect(asked).toEqual([
      { method: 'GET', url: `${s.origin}/sse` },
      { method: 'POST', url: `${s.origin}/messages?session=1` },
    ]);
  });

  it("a 401 on a POST hands the challenge to the auth hook once and retries with the hook's new headers", async () => {
    const s = await serve((req, res, count) => {
      if (req.method === 'GET') return stream(res, endpointEvent('/messages'));
      if (count === 1)
        return res
          .writeHead(401, {
            'www-authenticate': 'Bearer error="invalid_token"',
            'dpop-nonce': 'n-1',
          })
          .end();
      res.writeHead(202).end();
    });
    let token = 'old';
    const challenges: HttpAuthChallenge[] = [];
    const t = new SseTransport({
      url: `${s.origin}/sse`,
      auth: {
        headers: () => ({ authorization: `Bearer ${token}` }),
        onUnauthorized: (challenge) => {
          challenges.push(challenge);
          token = 'new';
          return true;
        },
      },
    });
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await t.close();
    expect(challenges).toEqual([
      expect.objectContaining({
        status: 401,
        method: 'POST',
        url: `${s.origin}/messages`,
        authorization: 'Bearer old',
        wwwAuthenticate: 'Bearer error="invalid_token"',
        dpopNonce: 'n-1',
        retries: 0,
      }),
    ]);
    expect(s.seen.map((r) => r.headers.authorization)).toEqual([
      'Bearer old',
      'Bearer old',
      'Bearer new',
    ]);
  });

  it("a DPoP-Nonce on a 2xx answer is handed to the auth hook's onResponse", async () => {
    const s = await serve((req, res) => {
      if (req.method === 'GET') return stream(res, endpointEvent('/messages'));
      res.writeHead(202, { 'dpop-nonce': 'fresh-nonce' }).end();
    });
    const told: unknown[] = [];
    const t = new SseTransport({
      url: `${s.origin}/sse`,
      auth: { headers: () => ({}), onUnauthorized: () => false, onResponse: (r) => told.push(r) },
    });
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await t.close();
    expect(told).toEqual([{ url: `${s.origin}/messages`, status: 202, dpopNonce: 'fresh-nonce' }]);
  });
});

describe('SseTransport origin rule (hostile servers)', () => {
  it('an endpoint event naming another origin fails start() with CrossOriginError naming the server and the URL', async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(202).end());
    const s = await serve((_req, res) => stream(res, endpointEvent(`${elsewhere.origin}/steal`)));
    const t = new SseTransport({ url: `${s.origin}/sse`, name: 'hostile' });
    const error = await t.start().catch((e: unknown) => e);
    expect(CrossOriginError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ url: `${elsewhere.origin}/steal`, allowedOrigin: s.origin });
    expect((error as Error).message).toContain(
      `server "hostile": refusing ${elsewhere.origin}/steal`,
    );
    expect(elsewhere.seen).toEqual([]);
  });

  it('a GET redirected to another origin is refused before anything is sent there', async () => {
    const elsewhere = await serve((_req, res) => stream(res, endpointEvent('/messages')));
    const s = await serve((_req, res) =>
      res.writeHead(302, { location: `${elsewhere.origin}/sse` }).end(),
    );
    const t = new SseTransport({ url: `${s.origin}/sse`, name: 'hostile' });
    const error = await t.start().catch((e: unknown) => e);
    expect(CrossOriginError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`a 302 redirect of GET ${s.origin}/sse`);
    expect(elsewhere.seen).toEqual([]);
  });

  it('a POST redirected (307) to another origin is refused; the message never leaves', async () => {
    const elsewhere = await serve((_req, res) => res.writeHead(202).end());
    const s = await serve((req, res) => {
      if (req.method === 'GET') return stream(res, endpointEvent('/messages'));
      res.writeHead(307, { location: `${elsewhere.origin}/messages` }).end();
    });
    const t = new SseTransport({ url: `${s.origin}/sse`, name: 'hostile' });
    await t.start();
    const error = await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).catch((e: unknown) => e);
    await t.close();
    expect(CrossOriginError.isInstance(error)).toBe(true);
    expect(elsewhere.seen).toEqual([]);
  });

  it('a same-origin redirect is followed, and a relative endpoint resolves against where it led', async () => {
    const s = await serve((req, res) => {
      if (req.path === '/sse') return res.writeHead(307, { location: '/v2/sse' }).end();
      if (req.method === 'GET') return stream(res, endpointEvent('messages?session=7'));
      res.writeHead(202).end();
    });
    const t = new SseTransport({ url: `${s.origin}/sse` });
    await t.start();
    expect(t.sessionEndpoint).toBe(`${s.origin}/v2/messages?session=7`);
    await t.close();
  });

  it(`a redirect loop ends after ${MAX_SSE_REDIRECTS} hops with an HttpError`, async () => {
    const s = await serve((req, res) =>
      res.writeHead(302, { location: req.path === '/a' ? '/b' : '/a' }).end(),
    );
    const t = new SseTransport({ url: `${s.origin}/a` });
    const error = await t.start().catch((e: unknown) => e);
    expect(HttpError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`more than ${MAX_SSE_REDIRECTS} times`);
    expect(s.seen).toHaveLength(MAX_SSE_REDIRECTS + 1);
  });
});

describe('SseTransport reconnection', () => {
  it("re-opens a dropped stream with the policy's back-off, then closes with the cause once attempts run out", async () => {
    const s = await serve((_req, res, count) => {
      if (count > 0) return res.writeHead(500).end();
      stream(res, endpointEvent('/messages'));
      res.end(); // the stream drops right after the endpoint
    });
    const clock = instantSleep();
    const attempts: number[] = [];
    const t = new SseTransport({
      url: `${s.origin}/sse`,
      reconnect: { initialDelayMs: 100, growthFactor: 3, maxDelayMs: 500, maxAttempts: 3 },
      onreconnect: (e) => attempts.push(e.attempt),
      sleep: clock.sleep,
    });
    const closed = closedWith(t);
    await t.start();
    const cause = await closed;
    expect(ConnectionClosedError.isInstance(cause)).toBe(true);
    expect(cause!.message).toContain('event stream lost');
    expect(attempts).toEqual([1, 2, 3]);
    // 100, 100·3, then capped at maxDelayMs.
    expect(clock.waits).toEqual([100, 300, 500]);
    expect(s.seen).toHaveLength(4);
  });

  it('the attempt count starts afresh only once a re-opened stream delivers a message', async () => {
    const s = await serve((_req, res, count) => {
      if (count === 1)
        stream(res, `${endpointEvent('/m')}data: {"jsonrpc":"2.0","method":"x"}\n\n`);
      else stream(res, endpointEvent('/m'));
      res.end();
    });
    const clock = instantSleep();
    const messages: JsonRpcMessage[] = [];
    const t = new SseTransport({
      url: `${s.origin}/sse`,
      reconnect: { maxAttempts: 1 },
      sleep: clock.sleep,
    });
    t.onmessage = (m) => messages.push(m);
    const closed = closedWith(t);
    await t.start();
    await closed;
    // Drop 1 → attempt 1 (delivers a message: count reset) → drop 2 → attempt 1 again →
    // drop 3 with no message since: the one attempt is spent, the transport closes.
    expect(s.seen).toHaveLength(3);
    expect(messages).toEqual([{ jsonrpc: '2.0', method: 'x' }]);
  });

  it('maxAttempts 0: a drop closes the transport at once', async () => {
    const s = await serve((_req, res) => {
      stream(res, endpointEvent('/m'));
      res.end();
    });
    const clock = instantSleep();
    const t = new SseTransport({
      url: `${s.origin}/sse`,
      reconnect: { maxAttempts: 0 },
      sleep: clock.sleep,
    });
    const closed = closedWith(t);
    await t.start();
    expect(ConnectionClosedError.isInstance(await closed)).toBe(true);
    expect(clock.waits).toEqual([]);
    expect(s.seen).toHaveLength(1);
  });

  it('a re-opened stream whose endpoint names another origin closes the transport with CrossOriginError', async () => {
    const s = await serve((_req, res, count) => {
      stream(res, endpointEvent(count === 0 ? '/m' : 'http://127.0.0.1:1/m'));
      if (count === 0) res.end();
    });
    const t = new SseTransport({ url: `${s.origin}/sse`, sleep: instantSleep().sleep });
    const closed = closedWith(t);
    await t.start();
    expect(CrossOriginError.isInstance(await closed)).toBe(true);
    expect(s.seen).toHaveLength(2);
  });

  it('data that is not JSON is reported as a ParseError, and the stream reads on', async () => {
    const s = await serve((_req, res) =>
      stream(res, `${endpointEvent('/m')}data: {oops\n\ndata: {"jsonrpc":"2.0","method":"y"}\n\n`),
    );
    const t = new SseTransport({ url: `${s.origin}/sse`, name: 'noisy' });
    const errors: Error[] = [];
    t.onerror = (e) => errors.push(e);
    const delivered = new Promise<JsonRpcMessage>((resolve) => {
      t.onmessage = resolve;
    });
    await t.start();
    expect(await delivered).toEqual({ jsonrpc: '2.0', method: 'y' });
    expect(errors).toHaveLength(1);
    expect(ParseError.isInstance(errors[0])).toBe(true);
    expect(errors[0]!.message).toBe(`server "noisy": an event's data is not JSON`);
    await t.close();
  });
});

describe('SseTransport close paths', () => {
  it('close() during connect: start() rejects with ConnectionClosedError, onclose fires once', async () => {
    let opened!: () => void;
    const streamOpen = new Promise<void>((r) => {
      opened = r;
    });
    // The stream opens and never names an endpoint.
    const s = await serve((_req, res) => {
      stream(res, ': waiting\n\n');
      opened();
    });
    const t = new SseTransport({ url: `${s.origin}/sse`, name: 'slow' });
    let closes = 0;
    t.onclose = () => closes++;
    const starting = t.start().catch((e: unknown) => e);
    await streamOpen;
    await t.close();
    const error = await starting;
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('server "slow": closed while connecting');
    expect(closes).toBe(1);
  });

  it('close() during the wait before a reconnection ends the wait (its signal aborts), and nothing re-opens', async () => {
    const s = await serve((_req, res) => {
      stream(res, endpointEvent('/m'));
      res.end();
    });
    let waitBegan!: (signal: AbortSignal) => void;
    const waiting = new Promise<AbortSignal>((r) => {
      waitBegan = r;
    });
    const t = new SseTransport({
      url: `${s.origin}/sse`,
      // A wait that only an abort ends.
      sleep: (_ms, signal) => {
        waitBegan(signal);
        return new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
      },
    });
    const closed = closedWith(t);
    await t.start();
    const signal = await waiting;
    expect(signal.aborted).toBe(false);
    await t.close();
    expect(signal.aborted).toBe(true);
    expect(await closed).toBeUndefined();
    expect(s.seen).toHaveLength(1);
  });

  it('double close: onclose fires once, the second close() resolves', async () => {
    const s = await serve((_req, res) => stream(res, endpointEvent('/m')));
    const t = new SseTransport({ url: `${s.origin}/sse` });
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    await Promise.all([t.close(), t.close()]);
    await t.close();
    expect(closes).toBe(1);
    await expect(t.send({ jsonrpc: '2.0', method: 'x' })).rejects.toSatisfy((e) =>
      ConnectionClosedError.isInstance(e),
    );
  });

  it('close() lets a notification POST already going finish first (a cancellation sent just before closing arrives)', async () => {
    let posted!: () => void;
    const postArrived = new Promise<void>((r) => {
      posted = r;
    });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    // The POST is refused (400) once released: a send that rejects with that status shows
    // the answer was read, not cut off by the close (which rejects with ConnectionClosedError).
    const s = await serve((req, res) => {
      if (req.method === 'GET') return stream(res, endpointEvent('/m'));
      posted();
      void held.then(() => res.writeHead(400).end('no'));
    });
    const t = new SseTransport({ url: `${s.origin}/sse` });
    await t.start();
    const sending = t
      .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } })
      .catch((e: unknown) => e);
    await postArrived;
    const closing = t.close();
    release();
    expect(await sending).toMatchObject({ status: 400 });
    await closing;
    expect(JSON.parse(s.seen[1]!.body).method).toBe('notifications/cancelled');
  });

  it('close() with a POST in flight: the send rejects with ConnectionClosedError, it does not hang', async () => {
    let posted!: () => void;
    const postArrived = new Promise<void>((r) => {
      posted = r;
    });
    const s = await serve((req, res) => {
      if (req.method === 'GET') return stream(res, endpointEvent('/m'));
      posted(); // …and never answered
    });
    const t = new SseTransport({ url: `${s.origin}/sse` });
    await t.start();
    const sending = t.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).catch((e: unknown) => e);
    await postArrived;
    await t.close();
    expect(ConnectionClosedError.isInstance(await sending)).toBe(true);
  });
});

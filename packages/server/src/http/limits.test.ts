import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../mcp-server.js';
import { type ListenOptions, listenStreamableHttp, type StreamableHttpListener } from './listen.js';

/**
 * The bounds on what HTTP clients can make the handler hold (issue #23, Part 1 item 2):
 * sessions per client and in total, streams per session and in total, listen streams per
 * client and in total, event buffers across sessions, and the idle and age limits an open
 * stream cannot defeat. Real node:http servers on 127.0.0.1; other clients are other
 * loopback addresses (127.0.0.2 …) as their source.
 */
let listener: StreamableHttpListener | undefined;
let server: McpServer | undefined;
const open: ClientRequest[] = [];
let release: (() => void) | undefined;

afterEach(async () => {
  release?.();
  release = undefined;
  for (const r of open.splice(0)) r.destroy();
  await server?.close();
  await listener?.close();
  listener = undefined;
  server = undefined;
});

async function start(options: ListenOptions = {}): Promise<URL> {
  server = new McpServer({ info: { name: 'limits', version: '1.0.0' } });
  let gate = new Promise<void>((r) => {
    release = r;
  });
  server.registerTool(
    'wait',
    { description: 'Answers when the test releases it', inputSchema: { type: 'object' } },
    async () => {
      await gate;
      gate = Promise.resolve();
      return { content: [{ type: 'text', text: 'released' }] };
    },
  );
  server.registerTool(
    'poll',
    { description: 'Closes its stream, then answers', inputSchema: { type: 'object' } },
    async (args, ctx) => {
      ctx.closeSseStream();
      return { content: [{ type: 'text', text: String(args.text ?? '') }] };
    },
  );
  listener = await listenStreamableHttp(server, options);
  return listener.url;
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Sends a request; `until: 'headers'` resolves at the response headers and keeps it open. */
function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
  from?: string,
  until: 'end' | 'headers' = 'end',
): Promise<Answer & { ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers, ...(from ? { localAddress: from } : {}) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        const ended = new Promise<string>((r) => {
          res.on('end', () => r(text));
          res.on('close', () => r(text));
        });
        const answer = { status: res.statusCode ?? 0, headers: res.headers, ended };
        if (until === 'headers') {
          open.push(req);
          resolve({ ...answer, body: '' });
        } else void ended.then((t) => resolve({ ...answer, body: t }));
      },
    );
    req.on('error', (error) => {
      if ((error as { code?: string }).code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const v25 = '2025-11-25';

async function initialize(url: URL, from?: string): Promise<Answer & { session?: string }> {
  const answer = await send(
    url,
    'POST',
    json,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: v25, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
    from,
  );
  const session = answer.headers['mcp-session-id'];
  if (typeof session !== 'string') return answer;
  await send(
    url,
    'POST',
    { ...json, 'mcp-session-id': session, 'mcp-protocol-version': v25 },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    from,
  );
  return { ...answer, session };
}

function call(
  url: URL,
  session: string,
  id: number,
  name: string,
  args = {},
  until: 'end' | 'headers' = 'end',
) {
  return send(
    url,
    'POST',
    { ...json, 'mcp-session-id': session, 'mcp-protocol-version': v25 },
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
    undefined,
    until,
  );
}

function getStream(url: URL, session: string, lastEventId?: string) {
  return send(
    url,
    'GET',
    {
      accept: 'text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': v25,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    undefined,
    undefined,
    'headers',
  );
}

function listen(url: URL, id: number, from?: string) {
  return send(
    url,
    'POST',
    { ...json, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: {
        notifications: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
    from,
    'headers',
  );
}

const errorOf = (body: string) =>
  (JSON.parse(body) as { error: { code: number; message: string } }).error;

describe('session caps', () => {
  it('one client at its session maximum gets 429, another client still gets a session, and the total is 503', async () => {
    const url = await start({ maxSessionsPerClient: 2, maxSessions: 4 });
    expect((await initialize(url)).status).toBe(200);
    expect((await initialize(url)).status).toBe(200);
    const third = await initialize(url);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('5');
    expect(errorOf(third.body)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/this client holds 2 sessions/),
    });
    // The user's own client, elsewhere, is not locked out by the first one.
    expect((await initialize(url, '127.0.0.2')).status).toBe(200);
    expect((await initialize(url, '127.0.0.3')).status).toBe(200);
    const full = await initialize(url, '127.0.0.4');
    expect(full.status).toBe(503);
    expect(errorOf(full.body).message).toMatch(/4 sessions are open/);
    expect(listener!.handler.stats().sessions).toBe(4);
  });

  it('a per-client key from the listener (a token identity, say) replaces the address', async () => {
    const url = await start({
      maxSessionsPerClient: 1,
      clientKey: (req) => String(req.headers['x-test-identity'] ?? 'anonymous'),
    });
    const as = (who: string) =>
      send(
        url,
        'POST',
        { ...json, 'x-test-identity': who },
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: v25,
            capabilities: {},
            clientInfo: { name: 't', version: '1' },
          },
        }),
      );
    expect((await as('alice')).status).toBe(200);
    expect((await as('alice')).status).toBe(429);
    expect((await as('bob')).status).toBe(200);
  });
});

describe('stream caps', () => {
  it('a session over its stream maximum gets 429; the handler over its total gets 503', async () => {
    // SSE answers: the held call's stream is open (headers sent) before it is answered.
    const url = await start({ maxStreamsPerSession: 2, maxStreams: 3, responseMode: 'sse' });
    const a = (await initialize(url)).session!;
    expect((await getStream(url, a)).status).toBe(200);
    const waiting = await call(url, a, 1, 'wait', {}, 'headers');
    expect(waiting.status).toBe(200);
    const over = await call(url, a, 2, 'wait');
    expect(over.status).toBe(429);
    expect(errorOf(over.body)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/this session has 2 requests or streams open/),
    });
    const b = (await initialize(url)).session!;
    expect((await getStream(url, b)).status).toBe(200);
    expect(listener!.handler.stats().streams).toBe(3);
    const total = await initialize(url, '127.0.0.2');
    expect(total.status).toBe(503);
    expect(errorOf(total.body).message).toMatch(/3 requests or streams are open/);
  });

  it('subscriptions/listen streams: 429 over the per-client count, 503 over the total', async () => {
    const url = await start({ maxListenStreamsPerClient: 2, maxListenStreams: 3 });
    expect((await listen(url, 1)).status).toBe(200);
    expect((await listen(url, 2)).status).toBe(200);
    const third = await listen(url, 3);
    expect(third.status).toBe(429);
    expect(errorOf(await third.ended).message).toMatch(/holds 2 subscriptions\/listen streams/);
    expect((await listen(url, 4, '127.0.0.2')).status).toBe(200);
    const full = await listen(url, 5, '127.0.0.3');
    expect(full.status).toBe(503);
    expect(errorOf(await full.ended).message).toMatch(/3 subscriptions\/listen streams are open/);
    expect(listener!.handler.stats()).toMatchObject({ listenStreams: 3 });
  });

  it('a listen stream body over maxBodyBytes is refused with 413 before it is held', async () => {
    const url = await start({ maxBodyBytes: 1024 });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: {
        notifications: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { experimental: { pad: 'p'.repeat(4096) } },
        },
      },
    });
    const answer = await send(
      url,
      'POST',
      { ...json, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
      body,
    );
    expect(answer.status).toBe(413);
    expect(listener!.handler.stats()).toMatchObject({ listenStreams: 0, listenBytes: 0 });
  });
});

describe('event buffers', () => {
  it('the total bound evicts another session’s oldest events, and resuming them is 410, not a silent gap', async () => {
    const url = await start({ maxBufferedBytes: 3000, maxBufferedBytesPerSession: 100_000 });
    const a = (await initialize(url)).session!;
    const b = (await initialize(url)).session!;
    const polled = await call(url, a, 1, 'poll', { text: 'a'.repeat(2000) });
    const primingA = /id: (\d+_\d+)/.exec(polled.body)![1]!;
    // A's answer is kept: nothing delivered it.
    expect(listener!.handler.stats().bufferedBytes).toBeGreaterThan(2000);
    await call(url, b, 1, 'poll', { text: 'b'.repeat(2000) });
    // B's answer needed the room: A's went.
    const stats = listener!.handler.stats();
    expect(stats.bufferedEvents).toBe(1);
    expect(stats.bufferedBytes).toBeLessThanOrEqual(3000);
    const resumed = await send(url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': a,
      'mcp-protocol-version': v25,
      'last-event-id': primingA,
    });
    expect(resumed.status).toBe(410);
    expect(errorOf(resumed.body)).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/^Gone: events after Last-Event-ID/),
    });
  });

  it('an answer larger than the per-session bound is still kept alone for its resumption', async () => {
    const url = await start({ maxBufferedBytesPerSession: 1000 });
    const a = (await initialize(url)).session!;
    const small = await call(url, a, 1, 'poll', { text: 's'.repeat(600) });
    const answer = await call(url, a, 2, 'poll', { text: 'y'.repeat(5000) });
    const priming = /id: (\d+_\d+)/.exec(answer.body)![1]!;
    // The older, smaller answer made room: resuming it is 410.
    const older = await send(url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': a,
      'mcp-protocol-version': v25,
      'last-event-id': /id: (\d+_\d+)/.exec(small.body)![1]!,
    });
    expect(older.status).toBe(410);
    const resumed = await getStream(url, a, priming);
    expect(resumed.status).toBe(200);
    expect(await resumed.ended).toContain('y'.repeat(5000));
  });

  it('an answer delivered on a stream that ended cleanly is dropped at once', async () => {
    const url = await start({ responseMode: 'sse' });
    const a = (await initialize(url)).session!;
    const answer = await call(url, a, 1, 'poll', { text: 'x'.repeat(5000) });
    const priming = /id: (\d+_\d+)/.exec(answer.body)![1]!;
    const resumed = await getStream(url, a, priming);
    expect(resumed.status).toBe(200);
    expect(await resumed.ended).toContain('x'.repeat(5000));
    // Once resumed to its end, nothing of that stream can be asked for again: nothing kept.
    expect(listener!.handler.stats()).toMatchObject({ bufferedEvents: 0, bufferedBytes: 0 });
  });
});

describe('idle and age limits', () => {
  it('a session whose only activity is an open GET stream still expires after the idle timeout', async () => {
    const closed: string[] = [];
    let onClose: (() => void) | undefined;
    const url = await start({
      sessionIdleTimeoutMs: 200,
      onsessionclose: (id) => {
        closed.push(id);
        onClose?.();
      },
    });
    const a = (await initialize(url)).session!;
    const stream = await getStream(url, a);
    expect(stream.status).toBe(200);
    await new Promise<void>((r) => {
      onClose = r;
      if (closed.length > 0) r();
    });
    expect(closed).toEqual([a]);
    await stream.ended;
    const after = await call(url, a, 5, 'poll');
    expect(after.status).toBe(404);
  });

  it('a GET stream ends after maxStreamAgeMs, and the client resumes it with Last-Event-ID', async () => {
    const url = await start({ maxStreamAgeMs: 200 });
    const a = (await initialize(url)).session!;
    const stream = await getStream(url, a);
    const first = await stream.ended;
    const priming = /id: (0_\d+)\nretry: \d+/.exec(first)![1]!;
    const resumed = await getStream(url, a, priming);
    expect(resumed.status).toBe(200);
    // The session is still there.
    expect(listener!.handler.stats().sessions).toBe(1);
  });

  it('a subscriptions/listen stream ends with its graceful result after maxStreamAgeMs', async () => {
    const url = await start({ maxStreamAgeMs: 200 });
    const l = await listen(url, 9);
    expect(l.status).toBe(200);
    const text = await l.ended;
    expect(text).toMatch(
      /data: \{"jsonrpc":"2.0","id":9,"result":\{[^\n]*"io.modelcontextprotocol\/subscriptionId":9\}\}\}\n\n$/,
    );
    expect(listener!.handler.stats().listenStreams).toBe(0);
  });
});

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * What one client can make the HTTP face hold (issue #23, Part 1 item 2), measured on a real
 * McpServer behind the built `listenStreamableHttp` in a child process (`--expose-gc`): its
 * handler's accounting (`stats()`) and its heap and RSS after full GCs. The numbers are the
 * issue's: 100 calls answering 3 MB each in one session and a second session, then 700
 * `subscriptions/listen` streams each declaring 3 MB of client capabilities.
 * (`pnpm turbo run build --filter=@mcpkit/server` first: the child runs the built package.)
 */
const script = fileURLToPath(new URL('./memory-server.mjs', import.meta.url));
const MB = 1024 * 1024;
const RESULT_BYTES = 3 * MB;

interface Measure {
  stats: {
    sessions: number;
    streams: number;
    listenStreams: number;
    listenBytes: number;
    bufferedEvents: number;
    bufferedBytes: number;
  } | null;
  sessions: number;
  rss: number;
  heapUsed: number;
}

interface MemoryServer {
  url: URL;
  measure(): Promise<Measure>;
  close(): Promise<void>;
}

let running: ChildProcessWithoutNullStreams | undefined;
let gateway: InProcessGateway | undefined;
const held: ClientRequest[] = [];
afterEach(async () => {
  for (const r of held.splice(0)) r.destroy();
  await gateway?.close();
  gateway = undefined;
  const child = running;
  running = undefined;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.stdin.end();
    await exited;
  }
});

async function startMemoryServer(
  resultBytes: number,
  limits: Record<string, unknown>,
): Promise<MemoryServer> {
  const child = spawn(process.execPath, ['--expose-gc', script], {
    env: {
      PATH: process.env.PATH,
      MEMORY_RESULT_BYTES: String(resultBytes),
      MEMORY_LIMITS: JSON.stringify(limits),
    },
  });
  running = child;
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const lines = createInterface({ input: child.stdout });
  const waiting: Array<(line: string) => void> = [];
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`memory server exited (${code ?? signal}): ${stderr.slice(-2000)}`)),
    ),
  );
  exited.catch(() => {});
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = () => Promise.race([new Promise<string>((r) => waiting.push(r)), exited]);
  const first = JSON.parse(await nextLine()) as { url: string };
  return {
    url: new URL(first.url),
    measure: async () => {
      const line = nextLine();
      child.stdin.write('measure\n');
      return JSON.parse(await line) as Measure;
    },
    close: async () => {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  /** Bytes of the body read. */
  bytes: number;
  /** The first 4 KB and the last 256 bytes of the body. */
  head: string;
  tail: string;
}

/** One HTTP exchange, the body read to its end (counted, not kept). */
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
  localAddress?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers, ...(localAddress ? { localAddress } : {}) },
      (res) => {
        let bytes = 0;
        let head = '';
        let tail = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          bytes += c.length;
          if (head.length < 4096) head += c.slice(0, 4096 - head.length);
          tail = (tail + c).slice(-256);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, head, tail }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const legacy = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

async function openSession(
  url: URL,
  localAddress?: string,
  extra: Record<string, string> = {},
): Promise<Answer & { id?: string }> {
  const init = await exchange(
    url,
    'POST',
    { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra },
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'memory-test', version: '1' },
      },
    }),
    localAddress,
  );
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string') return init;
  const ack = await exchange(
    url,
    'POST',
    { ...legacy, ...extra, 'mcp-session-id': id },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    localAddress,
  );
  expect(ack.status).toBe(202);
  return { ...init, id };
}

function callBig(url: URL, session: string, id: number, poll: boolean): Promise<Answer> {
  return exchange(
    url,
    'POST',
    { ...legacy, 'mcp-session-id': session },
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'big', arguments: { poll }, _meta: { progressToken: id } },
    }),
  );
}

/** The priming event's id of a polled call's stream (`<stream>_<seq>`). */
function primingId(answer: Answer): string {
  const m = /^id: (\d+_\d+)\nretry:/m.exec(answer.head);
  if (!m) throw new Error(`no priming event in ${JSON.stringify(answer.head.slice(0, 200))}`);
  return m[1]!;
}

function resume(url: URL, session: string, lastEventId: string): Promise<Answer> {
  return exchange(url, 'GET', {
    accept: 'text/event-stream',
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-11-25',
    'last-event-id': lastEventId,
  });
}

/** A `subscriptions/listen` POST whose capabilities carry `padBytes`; resolves at its headers. */
function listen(
  url: URL,
  id: number,
  padBytes: number,
  localAddress?: string,
): Promise<{ status: number; req: ClientRequest; body: Promise<string> }> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications: { toolsListChanged: true },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {
          experimental: { pad: { data: 'c'.repeat(padBytes) } },
        },
        'io.modelcontextprotocol/clientInfo': { name: 'memory-test', version: '1' },
      },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
          'content-length': String(Buffer.byteLength(body)),
        },
        ...(localAddress ? { localAddress } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        const done = new Promise<string>((r) => {
          res.on('data', (c: string) => {
            if (text.length < 4096) text += c;
          });
          res.on('end', () => r(text));
          res.on('close', () => r(text));
        });
        resolve({ status: res.statusCode ?? 0, req, body: done });
      },
    );
    req.on('error', (error) => {
      if ((error as { code?: string }).code !== 'ECONNRESET') reject(error);
    });
    req.end(body);
  });
}

const mb = (n: number) => Math.round((n / MB) * 10) / 10;

interface Scenario {
  /** Bytes of each tool answer and of each listen's declared capabilities. */
  payload: number;
  /** Calls in each of the two sessions. */
  calls: number;
  /** subscriptions/listen attempts from one client. */
  listens: number;
  /** The listener's byte bounds (`@mcpkit/server`'s defaults when absent). */
  limits: Record<string, number>;
  perSessionBytes: number;
  perClientListenBytes: number;
}

/**
 * Session A: `calls` answers of `payload` bytes over SSE, each read to its end. Session B:
 * `calls` answers whose streams the server closes first (SEP-1699 polling), so each waits in
 * the event buffer for a resumption. Then `listens` listen streams from one client with
 * `payload` bytes of capabilities, and one from another client. Returns the measurements.
 */
async function scenario(s: Scenario) {
  const server = await startMemoryServer(s.payload, s.limits);
  const base = await server.measure();

  const a = await openSession(server.url);
  expect(a.status).toBe(200);
  for (let i = 1; i <= s.calls; i++) {
    const answer = await callBig(server.url, a.id!, i, false);
    expect(answer.status).toBe(200);
    expect(answer.bytes).toBeGreaterThan(s.payload);
    expect(answer.head).toContain(`"id":${i},"result"`);
    expect(answer.tail).toMatch(/"\}\]\}\}\n\n$/);
  }
  const delivered = await server.measure();

  const b = await openSession(server.url);
  expect(b.status).toBe(200);
  const priming: string[] = [];
  for (let i = 1; i <= s.calls; i++) {
    const answer = await callBig(server.url, b.id!, i, true);
    expect(answer.status).toBe(200);
    priming.push(primingId(answer));
  }
  const polled = await server.measure();
  // The newest answer is still there; the oldest was evicted: 410, not a silent hole.
  const newest = await resume(server.url, b.id!, priming[s.calls - 1]!);
  expect(newest.status).toBe(200);
  expect(newest.head).toContain(`"id":${s.calls},"result"`);
  expect(newest.bytes).toBeGreaterThan(s.payload);
  const oldest = await resume(server.url, b.id!, priming[0]!);
  expect(oldest.status).toBe(410);
  expect(JSON.parse(oldest.head)).toMatchObject({
    error: { code: -32000, message: expect.stringMatching(/^Gone: events after/) },
  });

  const statuses: Record<number, number> = {};
  let refusal = '';
  // Ten at a time: which two are admitted may vary, how many may not.
  for (let i = 1; i <= s.listens; i += 10) {
    const batch = [];
    for (let j = i; j < i + 10 && j <= s.listens; j++) batch.push(listen(server.url, j, s.payload));
    for (const l of await Promise.all(batch)) {
      statuses[l.status] = (statuses[l.status] ?? 0) + 1;
      if (l.status === 200) held.push(l.req);
      else refusal = await l.body;
    }
  }
  // Another client (another loopback address) still gets its listen stream.
  const other = await listen(server.url, s.listens + 1, 1024, '127.0.0.2');
  expect(other.status).toBe(200);
  held.push(other.req);
  const listening = await server.measure();

  console.log(
    JSON.stringify({
      payloadMB: mb(s.payload),
      baseline: { heapMB: mb(base.heapUsed), rssMB: mb(base.rss) },
      afterDelivered: {
        heapMB: mb(delivered.heapUsed),
        rssMB: mb(delivered.rss),
        stats: delivered.stats,
      },
      afterPolled: { heapMB: mb(polled.heapUsed), rssMB: mb(polled.rss), stats: polled.stats },
      afterListens: {
        heapMB: mb(listening.heapUsed),
        rssMB: mb(listening.rss),
        stats: listening.stats,
        statuses,
      },
    }),
  );

  // Delivered answers are dropped once their stream ended cleanly: nothing is kept.
  expect(delivered.stats).toMatchObject({ sessions: 1, bufferedBytes: 0, bufferedEvents: 0 });
  // Undelivered ones are kept within the per-session byte bound (two answers fit).
  expect(polled.stats!.bufferedBytes).toBeLessThanOrEqual(s.perSessionBytes);
  expect(polled.stats!.bufferedBytes).toBeGreaterThan(s.payload);
  // One client's listens hold at most its request bytes: two of `payload` fit, the rest 429.
  expect(statuses).toEqual({ 200: 2, 429: s.listens - 2 });
  expect(JSON.parse(refusal)).toMatchObject({
    error: { code: -32000, message: expect.stringMatching(/^Too Many Requests/) },
  });
  expect(listening.stats).toMatchObject({ sessions: 2, listenStreams: 3 });
  expect(listening.stats!.listenBytes).toBeLessThanOrEqual(s.perClientListenBytes + 64 * 1024);
  return { base, delivered, polled, listening };
}

describe('memory one client can take (issue #23 item 2)', () => {
  it("the issue's counts (100 calls in a session, a second session, 700 listens) with payloads and byte bounds scaled by 1/32: the server process holds what the bounds allow, not what clients send", async () => {
    // Scaled so the run stays short on a loaded machine: 96 KiB instead of 3 MiB per
    // answer and per listen's capabilities, and every byte bound 1/32 of its default, so the
    // same number of events is kept and the same number of listens refused as at full size.
    const m = await scenario({
      payload: RESULT_BYTES / 32,
      calls: 100,
      listens: 700,
      limits: {
        maxBufferedBytesPerSession: (8 * MB) / 32,
        maxBufferedBytes: (64 * MB) / 32,
        maxListenBytesPerClient: (8 * MB) / 32,
        maxListenBytes: (64 * MB) / 32,
      },
      perSessionBytes: (8 * MB) / 32,
      perClientListenBytes: (8 * MB) / 32,
    });
    // The stated bound: what the bounds allow (256 KiB of events, 256 KiB of listens and the
    // other client's) plus 16 MiB for the sessions, parsed copies and V8's slack, over the
    // idle baseline. Before the bounds: 100 answers × 2 sessions and 700 listens, ~85 MB.
    for (const after of [m.delivered, m.polled, m.listening]) {
      expect(after.heapUsed - m.base.heapUsed).toBeLessThan(16 * MB);
      expect(after.rss - m.base.rss).toBeLessThan(128 * MB);
    }
  }, 180_000);

  it('at full size (3 MiB answers and capabilities, the default bounds): 8 calls per session and 5 listens stay within 8 MiB of events per session and 8 MiB of listens per client', async () => {
    const m = await scenario({
      payload: RESULT_BYTES,
      calls: 8,
      listens: 5,
      limits: {},
      perSessionBytes: 8 * MB,
      perClientListenBytes: 8 * MB,
    });
    // The stated bound: 8 MiB of events + 8 MiB of listens (and their parsed capabilities,
    // held once each) + 16 MiB of slack. Before: every answer kept (48 MiB) and all 5
    // listens (15 MiB).
    for (const after of [m.delivered, m.polled, m.listening]) {
      expect(after.heapUsed - m.base.heapUsed).toBeLessThan(40 * MB);
      expect(after.rss - m.base.rss).toBeLessThan(256 * MB);
    }
  }, 180_000);
});

describe('through @mcpkit/gateway (listenHttp passes the bounds through)', () => {
  const TOKEN = 'gateway-memory-token-0123456789abcdef';
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('a gateway session keeps no answer it delivered, and one client at its session maximum does not lock out another', async () => {
    gateway = await startInProcessHttpGateway(
      { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
      {
        token: TOKEN,
        limits: { maxSessionsPerClient: 2, maxBufferedBytesPerSession: 1024 * 1024 },
      },
    );
    const a = await openSession(gateway.url, undefined, auth);
    expect(a.status).toBe(200);
    const big = 'e'.repeat(256 * 1024);
    for (let i = 1; i <= 10; i++) {
      // An SSE-only client: every answer goes over an event stream (and into the buffer).
      const answer = await exchange(
        gateway.url,
        'POST',
        { ...legacy, ...auth, accept: 'text/event-stream', 'mcp-session-id': a.id! },
        JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'everything__echo', arguments: { message: big } },
        }),
      );
      expect(answer.status).toBe(200);
      expect(answer.bytes).toBeGreaterThan(big.length);
    }
    expect(gateway.stats()).toMatchObject({ sessions: 1, bufferedEvents: 0, bufferedBytes: 0 });
    expect((await openSession(gateway.url, undefined, auth)).status).toBe(200);
    const third = await openSession(gateway.url, undefined, auth);
    expect(third.status).toBe(429);
    expect(JSON.parse(third.head)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/this client holds 2 sessions/) },
    });
    // The user's own client, from elsewhere, still gets its session.
    expect((await openSession(gateway.url, '127.0.0.2', auth)).status).toBe(200);
    expect(gateway.stats().sessions).toBe(3);
  }, 60_000);
});

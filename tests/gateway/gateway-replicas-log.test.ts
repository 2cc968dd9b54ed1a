import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { McpServer } from '@mcpkit/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropAfterFirstEventId,
  eventIdAt,
  type RedisServer,
  rawSession,
  serveReplica,
  startRedis,
} from '../support/scaleout.js';

/**
 * Two replicas of one Streamable HTTP endpoint (`@mcpkit/server` handlers in this process,
 * each with its own Redis connections) sharing 2025 sessions through a real redis-server,
 * with an event log of 2 events per stream: a resumption older than what the log still
 * holds is refused with 410 on the replica that did not answer the call.
 */
const MAX_EVENTS = 2;

let redis: RedisServer;
let admin: Redis;
let dir: string;
const replicas: Array<{ url: URL; close(): Promise<void> }> = [];

const waitFor = async (file: string) => {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20));
};

async function replica(id: string) {
  const server = new McpServer({ info: { name: 'log-probe', version: '1.0.0' } });
  // Five log messages on the call's stream once `go` exists, the answer once `end` exists.
  server.registerTool(
    'burst',
    {
      inputSchema: {
        type: 'object',
        properties: { go: { type: 'string' }, end: { type: 'string' } },
      },
    },
    async (args, ctx) => {
      const { go, end } = args as { go: string; end: string };
      await waitFor(go);
      for (let i = 1; i <= 5; i++) await ctx.log('info', { n: i });
      await waitFor(end);
      return { content: [{ type: 'text', text: 'burst done' }] };
    },
  );
  const store = new RedisSessionStore({ url: `unix://${redis.socket}` });
  return serveReplica(server, id, store, { maxBufferedEvents: MAX_EVENTS });
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis({ path: redis.socket });
  dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-replica-log-'));
  replicas.push(await replica('log-a'), await replica('log-b'));
}, 60_000);

afterAll(async () => {
  for (const r of replicas) await r.close().catch(() => {});
  await admin?.quit();
  await redis?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a Redis event log trimmed under a resumption', () => {
  it('Last-Event-ID older than the log holds: 410 on the other replica; one the log still follows resumes', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const headers = await rawSession(a.url);
    const go = path.join(dir, 'go');
    const end = path.join(dir, 'end');
    const abort = new AbortController();
    const res = await fetch(a.url, {
      method: 'POST',
      headers,
      signal: abort.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'burst', arguments: { go, end } },
      }),
    });
    // The client has the priming event only; the stream drops before any message.
    const priming = await dropAfterFirstEventId(res, abort);
    writeFileSync(go, '');
    const [streamId] = priming.split('_');
    const log = `mcpkit:{${headers['mcp-session-id']}}:e:${streamId}`;
    const kept = async () =>
      (await admin.lrange(log, 0, -1)).map(
        (t) => JSON.parse(t) as { seq: number; prev: number; data: string },
      );
    // All five sent; the log holds the last two.
    await expect
      .poll(async () => (await kept()).at(-1)?.data ?? '', { timeout: 20_000 })
      .toContain('"n":5');
    const events = await kept();
    expect(events).toHaveLength(MAX_EVENTS);
    const gone = await fetch(b.url, { headers: { ...headers, 'last-event-id': priming } });
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { error: { message: string } }).error.message).toContain(
      'trimmed from the session store',
    );
    // From the event right before the first one kept, nothing is missing: resumed on b.
    const from = eventIdAt(priming, events[0]!.prev);
    const resumed = await fetch(b.url, { headers: { ...headers, 'last-event-id': from } });
    expect(resumed.status).toBe(200);
    writeFileSync(end, '');
    const body = await resumed.text();
    expect(body).toContain('"n":4');
    expect(body).toContain('"n":5');
    expect(body).not.toContain('"n":3');
    expect(body).toContain('burst done');
    // The stream carried its answer: resuming after it is refused (no loop of reconnections).
    const last = [...body.matchAll(/^id: (\S+)$/gm)].at(-1)![1]!;
    const after = await fetch(b.url, { headers: { ...headers, 'last-event-id': last } });
    expect(after.status).toBe(404);
    await after.text();
  });
});

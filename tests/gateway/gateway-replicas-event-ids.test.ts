import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { McpServer } from '@mcpkit/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropAfterFirstEventId,
  ownerInEventId,
  type RedisServer,
  rawSession,
  serveReplica,
  startRedis,
} from '../support/scaleout.js';

/**
 * Replicas of one Streamable HTTP endpoint (`@mcpkit/server` handlers in this process, each
 * with its own Redis connections) sharing 2025 sessions through a real redis-server. A POST
 * stream's owner travels in its event ids and nowhere else, so a `Last-Event-ID` is the
 * client's word for it: malformed ids are refused, a forged one reaches only the caller's
 * own session, and no resumption waits on an owner that does not answer the stream.
 */
const HEARTBEAT_MS = 300;
/** A replica id over the 64 bytes event ids carry: its streams' owners go to Redis. */
const LONG_ID = `long-${'r'.repeat(70)}`;

let redis: RedisServer;
let admin: Redis;
let dir: string;
const errors: Error[] = [];
const replicas: Array<{ id: string; url: URL; close(): Promise<void> }> = [];
/** Files that release held calls: all written before the replicas close. */
const holds: string[] = [];

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const waitFor = async (file: string) => {
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20));
};

async function replica(id: string) {
  const server = new McpServer({
    info: { name: 'event-id-probe', version: '1.0.0' },
    onerror: (error) => errors.push(error),
  });
  server.registerTool(
    'hold',
    { inputSchema: { type: 'object', properties: { file: { type: 'string' } } } },
    async (args) => {
      await waitFor((args as { file: string }).file);
      return { content: [{ type: 'text', text: `released on ${id}` }] };
    },
  );
  const store = new RedisSessionStore({ url: `unix://${redis.socket}` });
  return { id, ...(await serveReplica(server, id, store, { replicaHeartbeatMs: HEARTBEAT_MS })) };
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis({ path: redis.socket });
  dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-event-ids-'));
  replicas.push(await replica('ids-a'), await replica('ids-b'), await replica(LONG_ID));
}, 60_000);

afterAll(async () => {
  for (const file of holds) writeFileSync(file, '');
  for (const r of replicas) await r.close().catch(() => {});
  await admin?.quit();
  await redis?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** POSTs a `hold` call with request id `id` and drops its stream after the priming event. */
async function holdAndDrop(
  url: URL,
  headers: Record<string, string>,
  id: string | number,
): Promise<{ eventId: string; release(): void }> {
  const file = path.join(dir, `release-${holds.length}`);
  holds.push(file);
  const abort = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers,
    signal: abort.signal,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'hold', arguments: { file } },
    }),
  });
  expect(res.status).toBe(200);
  const eventId = await dropAfterFirstEventId(res, abort);
  return { eventId, release: () => writeFileSync(file, '') };
}

/** A resumption, bounded: a refusal that never comes fails here, by its message. */
const resume = (url: URL, headers: Record<string, string>, lastEventId: string) =>
  fetch(url, {
    headers: { ...headers, 'last-event-id': lastEventId },
    signal: AbortSignal.timeout(15_000),
  });

/** Each id refused with 404, as a stream this session does not have. */
async function expectNoSuchStream(url: URL, headers: Record<string, string>, ids: string[]) {
  for (const id of ids) {
    const res = await resume(url, headers, id);
    expect([id, res.status]).toEqual([id, 404]);
    await res.text();
  }
}

/** Replicas a and b, and two sessions opened on a. */
async function twoSessions() {
  const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
  return { a, b, headers: await rawSession(a.url), other: await rawSession(a.url) };
}

const sessionKeys = async (headers: Record<string, string>) =>
  (await admin.keys(`mcpkit:{${headers['mcp-session-id']}}:*`)).sort();

describe('stream owners in event ids, across replicas', () => {
  it('a stream opens with nothing written to Redis; its ids name its owner and request (a string id too); another replica resumes it', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const headers = await rawSession(a.url);
    const before = await sessionKeys(headers);
    const call = await holdAndDrop(a.url, headers, 'call-ü');
    const owner = ownerInEventId(call.eventId);
    expect(owner).toMatchObject({ replica: 'ids-a', requestId: 'call-ü' });
    expect(await sessionKeys(headers)).toEqual(before);
    const resumed = await resume(b.url, headers, call.eventId);
    expect(resumed.status).toBe(200);
    call.release();
    const body = await resumed.text();
    expect(body).toContain('released on ids-a');
    expect(body).toContain('"id":"call-ü"');
    // Every event sent on, by the replica that resumed, carries the stream's owner too.
    const ids = [...body.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(ownerInEventId(id)).toMatchObject({ replica: 'ids-a' });
    // Its first event put its log in the session's index; its last moved it to the ended one.
    const log = `mcpkit:{${headers['mcp-session-id']}}:e:${owner!.stream}`;
    expect(await admin.smembers(`mcpkit:{${headers['mcp-session-id']}}:d`)).toContain(log);
    expect(errors).toEqual([]);
  });

  it('owners too long for event ids go to Redis (a 100-byte request id, a 75-byte replica id), and their streams resume elsewhere', async () => {
    const [a, b, long] = replicas as [
      (typeof replicas)[0],
      (typeof replicas)[0],
      (typeof replicas)[0],
    ];
    for (const [owner, requestId] of [
      [a, 'x'.repeat(100)],
      [long, 5],
    ] as const) {
      const headers = await rawSession(owner.url);
      const call = await holdAndDrop(owner.url, headers, requestId);
      expect(call.eventId).toMatch(/^\d+_\d+$/);
      const stream = call.eventId.split('_')[0];
      const kept = await admin.get(`mcpkit:{${headers['mcp-session-id']}}:o:${stream}`);
      expect(JSON.parse(kept ?? 'null')).toEqual({ replica: owner.id, requestId });
      const resumed = await resume(b.url, headers, call.eventId);
      expect(resumed.status).toBe(200);
      call.release();
      expect(await resumed.text()).toContain(`released on ${owner.id}`);
    }
    expect(errors).toEqual([]);
  });

  it('malformed Last-Event-IDs: 404 at once from a replica that holds no such stream, which goes on serving', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const headers = await rawSession(a.url);
    const ida = b64('ids-a');
    const malformed = [
      '7'.repeat(300),
      `${'1'.repeat(16)}_1`,
      '5_1.',
      '5_1..1',
      `5_1.${ida}`,
      `5_1.${ida}.`,
      '5_1.!!.1',
      `5_1.${ida}=.1`,
      // Not the canonical encoding: other trailing bits, the same bytes.
      `5_1.${ida.slice(0, -1)}F.1`,
      `5_1.${ida}.01`,
      `5_1.${ida}.-0`,
      `5_1.${ida}.99999999999999999`,
      `5_1.${ida}.s!!`,
      // Not UTF-8.
      `5_1.${Buffer.from([0xff, 0xfe]).toString('base64url')}.1`,
      `5_1.${ida}.s${Buffer.from([0xc3]).toString('base64url')}`,
      // An empty replica id.
      '5_1..s',
      // The GET stream's ids carry no owner.
      `0_1.${ida}.1`,
      `5_1.${ida}.1.${ida}.1`,
    ];
    await expectNoSuchStream(b.url, headers, malformed);
    const call = await holdAndDrop(b.url, headers, 1);
    call.release();
    expect(errors).toEqual([]);
  });

  it('a forged id naming a live replica is not waited on: that replica says it answers no such stream (404)', async () => {
    const { a, b, headers, other } = await twoSessions();
    const call = await holdAndDrop(a.url, headers, 7);
    const stream = ownerInEventId(call.eventId)!.stream;
    const forged = [
      // A stream that never was, owned by the other live replica, or by the one asked.
      `${stream + 1}_0.${b64('ids-a')}.7`,
      `${stream + 1}_0.${b64('ids-b')}.7`,
      // The real stream, another request id.
      `${stream}_0.${b64('ids-a')}.8`,
      `${stream}_0.${b64('ids-a')}.s${b64('7')}`,
    ];
    await expectNoSuchStream(b.url, headers, forged);
    // The genuine id in another session of the same client: keys and owners are per session.
    await expectNoSuchStream(b.url, other, [call.eventId]);
    // The real stream is untouched: resumed with its own id, it gets its answer.
    const resumed = await resume(b.url, headers, call.eventId);
    expect(resumed.status).toBe(200);
    call.release();
    expect(await resumed.text()).toContain('released on ids-a');
    expect(errors).toEqual([]);
  });

  it("a forged id naming a replica that is not alive: the caller's own session gets the error naming it, no other session is touched", async () => {
    const { a, b, headers, other } = await twoSessions();
    const call = await holdAndDrop(a.url, other, 3);
    const otherKeys = await sessionKeys(other);
    const res = await resume(b.url, headers, `424242_0.${b64('ghost')}.4`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('(ghost) stopped before it answered');
    expect(body).toContain('"id":4');
    // Kept as that stream's last event, in the caller's session only, expiring with the end TTL.
    const log = `mcpkit:{${headers['mcp-session-id']}}:e:424242`;
    expect(await admin.pttl(log)).toBeLessThanOrEqual(60_000);
    expect(await admin.smembers(`mcpkit:{${headers['mcp-session-id']}}:d`)).toContain(log);
    expect(await sessionKeys(other)).toEqual(otherKeys);
    const again = await resume(b.url, headers, `424242_1.${b64('ghost')}.4`);
    expect(again.status).toBe(404);
    await again.text();
    call.release();
    expect(errors).toEqual([]);
  });
});

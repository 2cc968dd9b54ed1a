import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectText,
  dropAfterFirstEventId,
  type RedisServer,
  rawSession,
  startRedis,
  stepReplica,
} from '../support/scaleout.js';

/**
 * The Redis store against a real redis-server in Redis Cluster mode (one node holding every
 * slot): the node refuses a script or multi-key command whose keys span slots (CROSSSLOT),
 * and MONITOR shows every command the store sends, the ones its Lua scripts run included.
 * Each command's keys (as the server itself parses them, `COMMAND GETKEYS`) must hash to one
 * slot (`CLUSTER KEYSLOT`), and a script may touch only the keys it declared in KEYS.
 */
let redis: RedisServer;
let admin: Redis;
let monitor: Redis;
/** What MONITOR saw: who sent it (`lua` for a script's own commands) and the arguments. */
const seen: Array<{ source: string; args: string[] }> = [];
const replicas: Array<{ url: URL; close(): Promise<void> }> = [];
const storeErrors: Error[] = [];

beforeAll(async () => {
  redis = await startRedis({ cluster: true });
  admin = new Redis({ path: redis.socket });
  monitor = await new Redis({ path: redis.socket }).monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    seen.push({ source, args });
  });
  const replica = (id: string) =>
    stepReplica(id, new RedisSessionStore({ url: `unix://${redis.socket}` }), (e) =>
      storeErrors.push(e),
    );
  replicas.push(await replica('slot-a'), await replica('slot-b'));
}, 60_000);

afterAll(async () => {
  for (const r of replicas) await r.close().catch(() => {});
  monitor?.disconnect();
  await admin?.quit();
  await redis?.close();
});

/** The keys of a command as redis-server parses them (none for PUBLISH, PING, …). */
async function keysOf(args: readonly string[]): Promise<string[]> {
  try {
    return (await admin.call('COMMAND', 'GETKEYS', ...args)) as string[];
  } catch {
    return [];
  }
}

const slotOf = async (key: string) => Number(await admin.call('CLUSTER', 'KEYSLOT', key));

async function slotsOf(keys: readonly string[]): Promise<Set<number>> {
  return new Set(await Promise.all(keys.map(slotOf)));
}

/**
 * Every command MONITOR saw so far, checked: one slot per command, and a script's commands
 * touch only the keys its EVAL/EVALSHA declared. Returns every key seen.
 */
async function checkSeen(): Promise<Set<string>> {
  const commands = seen.splice(0);
  const all = new Set<string>();
  let declared: string[] = [];
  const crossing: string[] = [];
  const undeclared: string[] = [];
  for (const { source, args } of commands) {
    const name = args[0]!.toLowerCase();
    if (name === 'monitor' || (name === 'command' && args[1]?.toLowerCase() === 'getkeys'))
      continue;
    const keys = await keysOf(args);
    for (const k of keys) all.add(k);
    if (source === 'lua') {
      for (const k of keys) if (!declared.includes(k)) undeclared.push(`${args.join(' ')}: ${k}`);
    } else if (name === 'eval' || name === 'evalsha') {
      declared = keys;
    }
    if ((await slotsOf(keys)).size > 1) crossing.push(args.join(' '));
  }
  expect(crossing).toEqual([]);
  expect(undeclared).toEqual([]);
  return all;
}

const post = (url: URL, headers: Record<string, string>, body: unknown, signal?: AbortSignal) =>
  fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

describe('the Redis store on a Redis Cluster node', () => {
  it('every store method: each succeeds, each command and script stays in one slot', async () => {
    const store = new RedisSessionStore({ url: `unix://${redis.socket}` });
    try {
      const id = 'direct-session';
      const record = { protocolVersion: '2025-11-25', clientCapabilities: {}, subscriptions: [] };
      await store.saveSession(id, record, 60_000);
      expect(await store.loadSession(id)).toEqual(record);
      await store.openStream(id, 7, { replica: 'r', requestId: 1 }, 60_000);
      expect(await store.streamOwner(id, 7)).toEqual({ replica: 'r', requestId: 1 });
      await store.appendEvent(
        id,
        { stream: 7, seq: 1, prev: 0, data: '{}', final: true },
        60_000,
        4,
      );
      await store.appendStandalone(id, '{"n":1}', 60_000, 4);
      expect((await store.eventsAfter(id, 0, 0)).map((e) => e.data)).toEqual(['{"n":1}']);
      expect(await store.eventsAfter(id, 7, 0)).toHaveLength(1);
      await store.touchSession(id, 60_000);
      await store.openStream(id, 8, { replica: 'r', requestId: 2 }, 60_000);
      await store.appendEvent(id, { stream: 8, seq: 2, data: '{}', final: true }, 60_000, 4, 1);
      await expect.poll(() => store.streamOwner(id, 8)).toBeUndefined();
      // A stream opened with no owner key (its owner in its event ids): its first event lists
      // its log in the session's index (a touch extends it, DELETE finds it), its last moves
      // it to the index of ended streams, with the end TTL.
      const log9 = `mcpkit:{${id}}:e:9`;
      await store.appendEvent(
        id,
        { stream: 9, seq: 3, prev: 0, data: '{}', final: false },
        60_000,
        4,
      );
      expect(await admin.smembers(`mcpkit:{${id}}:k`)).toContain(log9);
      await store.appendEvent(
        id,
        { stream: 9, seq: 4, prev: 3, data: '{}', final: true },
        60_000,
        4,
        30_000,
      );
      expect(await admin.smembers(`mcpkit:{${id}}:k`)).not.toContain(log9);
      expect(await admin.smembers(`mcpkit:{${id}}:d`)).toContain(log9);
      expect(await admin.pttl(log9)).toBeLessThanOrEqual(30_000);
      expect(await admin.exists(`mcpkit:{${id}}:o:9`)).toBe(0);
      const got: unknown[] = [];
      const stop = await store.subscribe(id, (m) => got.push(m));
      await store.publish(id, { kind: 'closed' });
      await expect.poll(() => got.length).toBe(1);
      await stop();
      await store.heartbeat('r', 60_000);
      expect(await store.isAlive('r')).toBe(true);
      const keys = await admin.keys(`*${id}*`);
      expect(keys.length).toBeGreaterThanOrEqual(5);
      expect((await slotsOf(keys)).size).toBe(1);
      await store.deleteSession(id);
      expect(await admin.keys(`*${id}*`)).toEqual([]);
    } finally {
      await store.close();
    }
    await checkSeen();
  });

  it('a 2025 session over two replicas (GET stream on one, calls on the other, a stream resumed across, DELETE): no store error, one slot per session, ended streams expire 60 s after their answer', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const headers = await rawSession(a.url);
    const sessionId = headers['mcp-session-id']!;
    // The GET stream held on b: the list change a's tool sends reaches it through the store.
    const get = await fetch(b.url, { headers });
    expect(get.status).toBe(200);
    const getStream = collectText(get);
    const answer = await post(a.url, headers, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'step', arguments: {} },
    }).then((r) => r.text());
    expect(answer).toContain('step on slot-a');
    await expect
      .poll(getStream.text, { timeout: 10_000 })
      .toContain('notifications/tools/list_changed');
    // A call's stream dropped at its priming event on a, resumed on b from the store's log.
    const abort = new AbortController();
    const dropped = await post(
      a.url,
      headers,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'step', arguments: {} } },
      abort.signal,
    );
    const primed = await dropAfterFirstEventId(dropped, abort);
    const resumed = await fetch(b.url, { headers: { ...headers, 'last-event-id': primed } });
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain('step on slot-a');
    // The streams of initialize and both calls ended: their logs left the session's index
    // and expire 60 s after their last event, not with the session. No stream has an owner
    // key (their owners are in their event ids).
    const streamKeys = () => admin.keys(`*{${sessionId}}:[oe]:[1-9]*`);
    expect((await streamKeys()).map((k) => k.split(':').at(-2))).toEqual(['e', 'e', 'e']);
    await expect
      .poll(
        async () =>
          (await admin.smembers(`mcpkit:{${sessionId}}:k`)).filter((k) => /:[oe]:[1-9]/.test(k)),
        { timeout: 10_000 },
      )
      .toEqual([]);
    for (const key of await streamKeys()) expect(await admin.pttl(key)).toBeLessThanOrEqual(60_000);
    const keys = await admin.keys(`*${sessionId}*`);
    // Those, the record, the GET stream's counter and log, the two indexes.
    expect(keys.length).toBe(8);
    // Every other key of the session is in one of its indexes: DELETE finds it.
    const indexed = new Set([
      ...(await admin.smembers(`mcpkit:{${sessionId}}:k`)),
      ...(await admin.smembers(`mcpkit:{${sessionId}}:d`)),
    ]);
    expect(keys.filter((k) => !/:[skd]$/.test(k) && !indexed.has(k))).toEqual([]);
    expect((await slotsOf(keys)).size).toBe(1);
    const del = await fetch(b.url, { method: 'DELETE', headers });
    expect(del.status).toBeLessThan(300);
    await getStream.cancel();
    expect(await admin.keys(`*${sessionId}*`)).toEqual([]);
    expect(storeErrors.map((e) => e.message)).toEqual([]);
    const touched = await checkSeen();
    expect([...touched].some((k) => k.includes(sessionId))).toBe(true);
  });
});

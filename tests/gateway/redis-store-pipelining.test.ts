import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../support/scaleout.js';

/**
 * The Redis store's auto-pipelining (`autoPipelining: true`; off by default): what concurrent requests send in one
 * turn of the event loop reaches redis-server in one write, and each command still succeeds
 * or fails on its own. Without it, the events kept in one turn while another is unanswered
 * share one write too (the socket corked for the turn). A real redis-server counts the reads
 * it made (`INFO stats`).
 */
let redis: RedisServer;
let admin: Redis;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis({ path: redis.socket });
}, 30_000);

afterAll(async () => {
  await admin?.quit();
  await redis?.close();
});

/** Reads redis-server made from its clients so far (the INFO asking for it included). */
async function readsProcessed(): Promise<number> {
  const info = await admin.info('stats');
  return Number(/^total_reads_processed:(\d+)/m.exec(info)?.[1]);
}

const event = (stream: number, final: boolean) => ({
  stream,
  seq: stream,
  prev: stream - 1,
  data: `{"jsonrpc":"2.0","id":${stream},"result":{}}`,
  final,
});

describe('RedisSessionStore auto-pipelining', () => {
  it('10 calls opened and answered in one turn reach redis-server in one read, each kept', async () => {
    const store = new RedisSessionStore({ url: `unix://${redis.socket}`, autoPipelining: true });
    try {
      await store.ping();
      const before = await readsProcessed();
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const session = `pipelined-${i}`;
          await Promise.all([
            store.openStream(session, 1, { replica: 'r', requestId: i }, 60_000),
            store.appendEvent(session, event(1, true), 60_000, 16, 60_000),
          ]);
        }),
      );
      // The 20 scripts in one read (or two, were the write split), and the INFO itself.
      expect((await readsProcessed()) - before).toBeLessThanOrEqual(3);
      for (let i = 0; i < 10; i++) {
        expect(await store.streamOwner(`pipelined-${i}`, 1)).toEqual({
          replica: 'r',
          requestId: i,
        });
        expect(await store.eventsAfter(`pipelined-${i}`, 1, 0)).toEqual([event(1, true)]);
      }
    } finally {
      await store.close();
    }
  });

  it('a command that fails in a shared pipeline fails alone: the others of its turn are kept', async () => {
    const store = new RedisSessionStore({ url: `unix://${redis.socket}`, autoPipelining: true });
    try {
      // Session `broken`'s log key holds a string: RPUSH on it fails (WRONGTYPE).
      await admin.set('mcpkit:{broken}:e:1', 'not a list');
      await store.ping();
      const before = await readsProcessed();
      const results = await Promise.allSettled([
        store.appendEvent('fine-a', event(1, false), 60_000, 16),
        store.appendEvent('broken', event(1, false), 60_000, 16),
        store.appendEvent('fine-b', event(1, false), 60_000, 16),
      ]);
      expect((await readsProcessed()) - before).toBeLessThanOrEqual(3);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
      expect(await store.eventsAfter('fine-a', 1, 0)).toHaveLength(1);
      expect(await store.eventsAfter('fine-b', 1, 0)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});

describe('RedisSessionStore without auto-pipelining: the events of one turn in one write', () => {
  it('10 events kept in one turn while one is unanswered reach redis-server in one read, each its own command, a failing one alone', async () => {
    const store = new RedisSessionStore({ url: `unix://${redis.socket}` });
    try {
      await admin.set('mcpkit:{corked-broken}:e:1', 'not a list');
      await store.ping();
      // EVALSHAs run, those that failed included.
      const commands = async () => {
        const stat = /^cmdstat_evalsha:calls=(\d+).*failed_calls=(\d+)/m.exec(
          await admin.info('commandstats'),
        );
        return Number(stat?.[1] ?? 0) + Number(stat?.[2] ?? 0);
      };
      const evalsBefore = await commands();
      const before = await readsProcessed();
      const sessions = Array.from({ length: 10 }, (_, i) => `corked-${i}`);
      sessions[5] = 'corked-broken';
      const results = await Promise.allSettled(
        sessions.map((session) => store.appendEvent(session, event(1, true), 60_000, 16, 60_000)),
      );
      // The first alone (nothing unanswered yet), the nine after it in one write; the INFO.
      expect((await readsProcessed()) - before).toBeLessThanOrEqual(3);
      expect((await commands()) - evalsBefore).toBe(10);
      expect(results.map((r) => r.status)).toEqual(
        sessions.map((s) => (s === 'corked-broken' ? 'rejected' : 'fulfilled')),
      );
      for (const session of sessions.filter((s) => s !== 'corked-broken'))
        expect(await store.eventsAfter(session, 1, 0)).toEqual([event(1, true)]);
    } finally {
      await store.close();
    }
  });
});

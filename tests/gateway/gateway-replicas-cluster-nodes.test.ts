import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectText,
  dropAfterFirstEventId,
  type RedisCluster,
  rawSession,
  startRedisCluster,
  stepReplica,
} from '../support/scaleout.js';

/**
 * Two replicas whose `RedisSessionStore` talks to a real three-node Redis Cluster (ioredis's
 * Cluster client, `cluster` option): sessions land on different nodes by their hash tag, and
 * a session's GET stream, calls, a resumed stream and DELETE work across the replicas.
 */
let cluster: RedisCluster;
let admin: Cluster;
const errors: Error[] = [];
const replicas: Array<{ url: URL; close(): Promise<void> }> = [];

const nodes = () => cluster.ports.map((port) => ({ host: '127.0.0.1', port }));

beforeAll(async () => {
  cluster = await startRedisCluster();
  admin = new Cluster(nodes());
  const replica = (id: string) =>
    stepReplica(id, new RedisSessionStore({ cluster: { nodes: nodes() } }), (e) => errors.push(e));
  replicas.push(await replica('node-a'), await replica('node-b'));
}, 60_000);

afterAll(async () => {
  for (const r of replicas) await r.close().catch(() => {});
  admin?.disconnect();
  await cluster?.close();
});

/** The port of the node that holds a key. */
async function nodeOf(key: string): Promise<number> {
  const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', key));
  const ranges = (await admin.call('CLUSTER', 'SLOTS')) as Array<
    [number, number, [string, number]]
  >;
  const range = ranges.find(([from, to]) => slot >= from && slot <= to)!;
  return range[2][1];
}

describe('the Redis store on a three-node Redis Cluster', () => {
  it('sessions of two replicas across the nodes: GET stream on one replica, calls on the other, a stream resumed across, DELETE', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    // Eight sessions: their records land on more than one node.
    const sessions = await Promise.all(Array.from({ length: 8 }, () => rawSession(a.url)));
    const homes = new Set(
      await Promise.all(sessions.map((h) => nodeOf(`mcpkit:{${h['mcp-session-id']}}:s`))),
    );
    expect(homes.size).toBeGreaterThan(1);
    for (const headers of sessions) {
      expect(await admin.exists(`mcpkit:{${headers['mcp-session-id']}}:s`)).toBe(1);
      const get = await fetch(b.url, { headers });
      expect(get.status).toBe(200);
      const getStream = collectText(get);
      const answer = await fetch(a.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'step', arguments: {} },
        }),
      }).then((r) => r.text());
      expect(answer).toContain('step on node-a');
      await expect
        .poll(getStream.text, { timeout: 10_000 })
        .toContain('notifications/tools/list_changed');
      const abort = new AbortController();
      const dropped = await fetch(a.url, {
        method: 'POST',
        headers,
        signal: abort.signal,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'step', arguments: {} },
        }),
      });
      const primed = await dropAfterFirstEventId(dropped, abort);
      const resumed = await fetch(b.url, { headers: { ...headers, 'last-event-id': primed } });
      expect(resumed.status).toBe(200);
      expect(await resumed.text()).toContain('step on node-a');
      expect((await fetch(b.url, { method: 'DELETE', headers })).status).toBeLessThan(300);
      await getStream.cancel();
      expect(await admin.exists(`mcpkit:{${headers['mcp-session-id']}}:s`)).toBe(0);
    }
    expect(errors.map((e) => e.message)).toEqual([]);
  });
});

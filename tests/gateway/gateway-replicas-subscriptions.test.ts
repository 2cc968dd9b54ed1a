import { type ChildProcess, spawn } from 'node:child_process';
import type { SessionStore } from '@mcpkit/gateway';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Haproxy, type RedisServer, startHaproxy, startRedis } from '../support/scaleout.js';
import { conformanceServer } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Resource subscriptions of a 2025 session served by three gateway replicas (in this
 * process, sessions in a real redis-server) behind a real HAProxy (round-robin, no
 * stickiness), all in front of ONE backend: the @mcpkit/server conformance fixture over
 * Streamable HTTP, which sends `notifications/resources/updated` to every one of its
 * sessions that subscribed. Each replica has its own session with it, so a subscription
 * followed by every replica that holds a copy of the client's session reached it once per
 * replica.
 */
const WATCHED = 'test://watched-resource';

let redis: RedisServer;
let backend: ChildProcess;
let haproxy: Haproxy;
const replicas: Array<{ gateway: InProcessGateway; store: SessionStore }> = [];
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  redis = await startRedis();
  backend = spawn(process.execPath, [conformanceServer, 'http'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  });
  const url = await new Promise<string>((resolve, reject) => {
    backend.once('exit', (code) => reject(new Error(`the fixture exited (${code})`)));
    backend.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve(m[1]!);
    });
  });
  for (let i = 0; i < 3; i++) {
    const store = new RedisSessionStore({ redis: { path: redis.socket } });
    const gateway = await startInProcessHttpGateway(
      { conf: { type: 'http', url } },
      {
        limits: {
          sessionStore: store,
          replicaId: `sub-replica-${i}`,
          replicaHeartbeatMs: 600,
          responseMode: 'sse',
        },
      },
    );
    replicas.push({ gateway, store });
  }
  haproxy = await startHaproxy(replicas.map((r) => r.gateway.url));
}, 60_000);

afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await haproxy?.close();
  for (const r of replicas) {
    await r.gateway.close().catch(() => {});
    await r.store.close();
  }
  if (backend && backend.exitCode === null) {
    const exited = new Promise((resolve) => backend.once('exit', resolve));
    backend.kill('SIGTERM');
    await exited;
  }
  await redis?.close();
});

/** An SDK v1 client through HAProxy that counts the updates it hears. */
async function client(name: string) {
  const updates: string[] = [];
  const c = new ClientV1({ name, version: '1.0.0' });
  c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  await c.connect(new HttpV1(haproxy.url));
  opened.push(c);
  return { c, updates };
}

/** Requests that pass through every replica (round-robin): what they relay has arrived by then. */
async function throughEveryReplica(c: ClientV1): Promise<void> {
  for (let i = 0; i < 2 * replicas.length; i++) await c.listTools();
}

const touch = (c: ClientV1) =>
  c.callTool({ name: 'conf__test_touch_watched_resource', arguments: {} });

describe('gateway replicas: resource subscriptions', () => {
  it('an update reaches the subscribed session exactly once, and none after it unsubscribed through any replica', async () => {
    const { c, updates } = await client('subscriber');
    const quiet = await client('not-subscribed');
    let heard = 0;
    // Each round subscribes and unsubscribes one request further along HAProxy's turn: the
    // unsubscribe lands on another replica than the subscribe in some rounds.
    for (let round = 0; round < replicas.length; round++) {
      await c.subscribeResource({ uri: WATCHED });
      // Every replica serves the session (and holds a copy of it).
      await throughEveryReplica(c);
      for (let i = 0; i < 2; i++) {
        // Touched through any replica: the backend tells each of its sessions that subscribed.
        await touch(quiet.c);
        heard++;
        await expect.poll(() => updates.length).toBeGreaterThanOrEqual(heard);
        await throughEveryReplica(c);
        expect(updates).toEqual(Array.from({ length: heard }, () => WATCHED));
      }
      for (let i = 0; i <= round; i++) await c.listTools();
      await c.unsubscribeResource({ uri: WATCHED });
      await throughEveryReplica(c);
      await touch(quiet.c);
      await throughEveryReplica(c);
      expect(updates).toHaveLength(heard);
    }
    expect(quiet.updates).toEqual([]);
  });
});

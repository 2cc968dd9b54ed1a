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

const rawHeaders = (sessionId?: string) => ({
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-11-25',
  ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
});

/** One request of a raw session on one replica; the SSE answer's text. */
async function rawPost(url: URL, sessionId: string | undefined, body: object) {
  const res = await fetch(url, {
    method: 'POST',
    headers: rawHeaders(sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  return { res, text: await res.text() };
}

/** Reads an SSE response until `until` matches what came so far, then drops it. */
async function readUntil(res: Response, abort: AbortController, until: RegExp): Promise<string> {
  const reader = res.body!.getReader();
  let seen = '';
  while (!until.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended first: ${seen}`);
    seen += Buffer.from(value).toString();
  }
  abort.abort();
  return seen;
}

describe('gateway replicas: the GET stream down', () => {
  it('a message for a GET stream no replica holds is kept in the session log and replayed on Last-Event-ID, on another replica', async () => {
    const [r0, r1, r2] = replicas.map((r) => r.gateway.url) as [URL, URL, URL];
    const init = await rawPost(r0, undefined, {
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    const sessionId = init.res.headers.get('mcp-session-id')!;
    expect(sessionId).toBeTruthy();
    await rawPost(r0, sessionId, { method: 'notifications/initialized' });
    const subscribed = await rawPost(r1, sessionId, {
      id: 2,
      method: 'resources/subscribe',
      params: { uri: WATCHED },
    });
    expect(subscribed.text).toContain('"result":{}');
    // The GET stream, opened on a third replica, then down (its priming event read).
    const abort = new AbortController();
    const get = await fetch(r2, { headers: rawHeaders(sessionId), signal: abort.signal });
    expect(get.status).toBe(200);
    const primed = await readUntil(get, abort, /^id: (0_\d+)$/m);
    const lastEventId = /^id: (0_\d+)$/m.exec(primed)![1]!;
    // Wait until the replica that held it has seen it go.
    const { c: other } = await client('toucher');
    await throughEveryReplica(other);
    await touch(other);
    // Kept in the session's log in Redis, though no replica holds the GET stream.
    await expect
      .poll(async () => (await replicas[0]!.store.eventsAfter(sessionId, 0, 0)).length)
      .toBeGreaterThanOrEqual(1);
    // Resumed on another replica: the update is replayed, then the stream stays open.
    const again = new AbortController();
    const resumed = await fetch(r0, {
      headers: { ...rawHeaders(sessionId), 'last-event-id': lastEventId },
      signal: again.signal,
    });
    expect(resumed.status).toBe(200);
    const replay = await readUntil(resumed, again, /resources\/updated[^\n]*\n\n/);
    const after = Number(lastEventId.split('_')[1]);
    expect(replay).toContain(
      `id: 0_${after + 1}\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"${WATCHED}"}}\n\n`,
    );
    // Unsubscribed (through yet another replica), so that no backend follows it at the end.
    const gone = await rawPost(r2, sessionId, {
      id: 3,
      method: 'resources/unsubscribe',
      params: { uri: WATCHED },
    });
    expect(gone.text).toContain('"result":{}');
    await throughEveryReplica(other);
  });
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionStore } from '@mcpkit/gateway';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropAfterFirstEventId,
  type Haproxy,
  ownerInEventId,
  type RedisServer,
  startHaproxy,
  startRedis,
} from '../support/scaleout.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Three gateway replicas (createGateway + listenHttp in this process, each with its own
 * backend process and its own Redis connections) behind a real HAProxy, round-robin with
 * no stickiness, sharing 2025 sessions through a real redis-server.
 */
const probe = fileURLToPath(new URL('./replica-probe-server.mjs', import.meta.url));
const HEARTBEAT_MS = 600;

interface Replica {
  id: string;
  gateway: InProcessGateway;
  store: SessionStore;
  /** Sessions this replica took up from the store (opened on another replica). */
  hydrated: number;
  /** Streams of another replica this replica resumed. */
  remoteResumes: number;
  /** Its backend's pid (what `whoami` answers through it). */
  pid: string;
}

let redis: RedisServer;
let haproxy: Haproxy;
let admin: Redis;
let dir: string;
const replicas: Replica[] = [];
const opened: Array<{ close(): Promise<void> }> = [];

/** A Redis store that counts what tells which replica served what. */
function countingStore(replica: Replica, inner: SessionStore): SessionStore {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (key === 'loadSession') replica.hydrated++;
        if (key === 'subscribe' && String(args[0]).includes('#')) replica.remoteResumes++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis({ path: redis.socket });
  dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-replicas-'));
  for (let i = 0; i < 3; i++) {
    const replica = { id: `replica-${i}`, hydrated: 0, remoteResumes: 0 } as Replica;
    const inner = new RedisSessionStore({ redis: { path: redis.socket } });
    replica.store = countingStore(replica, inner);
    replica.gateway = await startInProcessHttpGateway(
      { probe: { command: process.execPath, args: [probe] } },
      {
        limits: {
          sessionStore: replica.store,
          replicaId: replica.id,
          replicaHeartbeatMs: HEARTBEAT_MS,
          // Answers as event streams, with priming events: a dropped one can be resumed.
          responseMode: 'sse',
        },
      },
    );
    const direct = new ClientV2({ name: 'direct', version: '1' });
    await direct.connect(new HttpV2(replica.gateway.url));
    replica.pid = text(await direct.callTool({ name: 'probe__whoami' }));
    await direct.close();
    replicas.push(replica);
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
  await admin?.quit();
  await redis?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const text = (result: unknown) =>
  ((result as { content: Array<{ text?: string }> }).content[0]?.text ?? '') as string;

const pidsOfReplicas = () => replicas.map((r) => r.pid);

async function initialize(url: URL): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
  expect(res.status).toBe(200);
  await res.text();
  const sessionId = res.headers.get('mcp-session-id');
  expect(sessionId).toBeTruthy();
  const note = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'mcp-session-id': sessionId!,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(note.status).toBe(202);
  return sessionId!;
}

/** POSTs a call that waits for `file`, reads the stream up to its priming event, and drops it. */
async function startCallAndDrop(url: URL, sessionId: string, file: string): Promise<string> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'probe__wait_for_file', arguments: { path: file } },
    }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return dropAfterFirstEventId(res, abort);
}

async function resume(url: URL, sessionId: string, lastEventId: string): Promise<string> {
  const res = await fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': lastEventId,
    },
  });
  expect(res.status).toBe(200);
  return res.text();
}

const sessionKeys = async () => (await admin.keys('mcpkit:{*}:s')).length;

describe('gateway replicas behind HAProxy, sessions in Redis', () => {
  it('SDK v1 client (2025-11-25): every call lands on another replica than the last, and works', async () => {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new HttpV1(haproxy.url));
    opened.push(client);
    const pids: string[] = [];
    for (let i = 0; i < 6; i++) pids.push(text(await client.callTool({ name: 'probe__whoami' })));
    for (let i = 1; i < pids.length; i++) expect(pids[i]).not.toBe(pids[i - 1]);
    expect(new Set(pids)).toEqual(new Set(pidsOfReplicas()));
    // The session was taken up from the store by the replicas that did not open it.
    expect(replicas.filter((r) => r.hydrated > 0).length).toBeGreaterThanOrEqual(2);
  });

  it('SDK v2 client (2026-07-28): stateless calls on every replica, nothing kept in Redis', async () => {
    const before = await sessionKeys();
    const client = new ClientV2(
      { name: 'sdk-v2', version: '2.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new HttpV2(haproxy.url));
    opened.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const pids: string[] = [];
    for (let i = 0; i < 6; i++) pids.push(text(await client.callTool({ name: 'probe__whoami' })));
    for (let i = 1; i < pids.length; i++) expect(pids[i]).not.toBe(pids[i - 1]);
    expect(new Set(pids)).toEqual(new Set(pidsOfReplicas()));
    expect(await sessionKeys()).toBe(before);
  });

  it('a call whose stream dropped is resumed with Last-Event-ID on another replica, which gets the answer', async () => {
    const sessionId = await initialize(haproxy.url);
    const file = path.join(dir, 'release-resume');
    const eventId = await startCallAndDrop(haproxy.url, sessionId, file);
    // The stream's owner is in its event ids, not in Redis: opening it wrote nothing there.
    const owner = ownerInEventId(eventId);
    expect(owner).toMatchObject({ replica: expect.stringMatching(/^replica-/), requestId: 7 });
    expect(await admin.keys(`mcpkit:{${sessionId}}:[oe]:${owner!.stream}`)).toEqual([]);
    const resumesBefore = replicas.map((r) => r.remoteResumes);
    const answer = resume(haproxy.url, sessionId, eventId);
    // The resumption is being served (by a replica that is not the owner) before the release.
    await expect
      .poll(() => replicas.some((r, i) => r.remoteResumes > resumesBefore[i]!))
      .toBe(true);
    writeFileSync(file, '');
    const body = await answer;
    expect(body).toContain(`released by ${file}`);
    expect(body).toMatch(/"id":7/);
    const resumer = replicas.findIndex((r, i) => r.remoteResumes > resumesBefore[i]!);
    expect(replicas[resumer]!.id).not.toBe(owner!.replica);
  });

  it('a session taken up by a GET and a POST at once is answered: neither sees it half restored (ci10)', async () => {
    // What the SDK v1 client does after `initialized`: its GET stream and its first call at
    // once, here both on a replica that did not open the session. The POST used to find the
    // copy the GET was still restoring (no protocol version, not connected): its stream
    // opened without a priming event and its call was never answered.
    const headers = (sessionId: string) => ({
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    });
    const other = replicas[1]!.gateway.url;
    const post = (sessionId: string, id: number) =>
      fetch(other, {
        method: 'POST',
        headers: headers(sessionId),
        // Bounded: the failure this catches is an answer that never comes.
        signal: AbortSignal.timeout(20_000),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'probe__whoami' },
        }),
      }).then((res) => res.text());
    for (let round = 0; round < 6; round++) {
      const sessionId = await initialize(replicas[0]!.gateway.url);
      const get = new AbortController();
      const stream = fetch(other, { headers: headers(sessionId), signal: get.signal });
      // Calls spread over the time the GET takes the session up (this process's turns).
      const calls: Promise<string>[] = [];
      for (let i = 0; i < 6; i++) {
        calls.push(post(sessionId, 10 + i));
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const body of await Promise.all(calls)) {
        expect(body).toMatch(/^id: \d+_\d+\.[\w-]+\.\d+\nretry: /);
        expect(body).toContain(`"text":"${replicas[1]!.pid}"`);
      }
      expect((await stream).status).toBe(200);
      get.abort();
    }
  });

  it('a bounded load run: 4 SDK v1 clients × 10 calls through HAProxy, no errors, every replica used', async () => {
    const clients = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const client = new ClientV1({ name: `load-${i}`, version: '1.0.0' });
        await client.connect(new HttpV1(haproxy.url));
        opened.push(client);
        return client;
      }),
    );
    const latencies: number[] = [];
    const seen = new Set<string>();
    let errors = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < 10; i++) {
          const t = performance.now();
          try {
            seen.add(text(await client.callTool({ name: 'probe__whoami' })));
          } catch {
            errors++;
          }
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    console.log(
      `load: ${latencies.length} calls in ${seconds.toFixed(2)} s (${(latencies.length / seconds).toFixed(0)} calls/s), p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, ${errors} errors`,
    );
    expect(errors).toBe(0);
    expect(latencies).toHaveLength(40);
    expect(seen).toEqual(new Set(pidsOfReplicas()));
  });

  it('a replica stops mid-call: the resumed call fails with an error naming it, the session goes on on the others', async () => {
    const client = new ClientV1({ name: 'sdk-v1-survivor', version: '1.0.0' });
    await client.connect(new HttpV1(haproxy.url));
    opened.push(client);
    const sessionId = await initialize(haproxy.url);
    const file = path.join(dir, 'release-never');
    const eventId = await startCallAndDrop(haproxy.url, sessionId, file);
    const dead = replicas.find((r) => r.id === ownerInEventId(eventId)?.replica)!;
    // Stopped: its heartbeat stops, its backend goes; HAProxy retries its refused connections elsewhere.
    await dead.gateway.close();
    const body = await resume(haproxy.url, sessionId, eventId);
    expect(body).toContain(`(${dead.id}) stopped before it answered`);
    expect(body).toMatch(/"id":7/);
    expect(existsSync(file)).toBe(false);
    // The SDK client's session (opened before) keeps working on the two that are left.
    const alive = pidsOfReplicas().filter((_, i) => replicas[i] !== dead);
    for (let i = 0; i < 4; i++)
      expect(alive).toContain(text(await client.callTool({ name: 'probe__whoami' })));
  });
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliReplica,
  dropAfterFirstEventId,
  type Haproxy,
  ownerInEventId,
  processAlive,
  type RedisServer,
  rawSession,
  startCliReplica,
  startHaproxy,
  startRedis,
} from '../support/scaleout.js';

/**
 * Four `mcpkit serve --http … --redis unix:///…` child processes (the built CLI) behind a
 * real HAProxy (round-robin, no stickiness) and a real redis-server; bounded load runs
 * through 1 and 3 of them; then replicas are killed with SIGKILL, one per test, while calls
 * run on them.
 */
const probe = fileURLToPath(new URL('./replica-probe-server.mjs', import.meta.url));
const TOKEN = 'replicas-shared-token-0123456789abcdef';
const HEARTBEAT_MS = 600;

let redis: RedisServer;
let haproxy: Haproxy;
/** HAProxy over the first replica alone, and over the first three (the load runs). */
let haproxy1: Haproxy;
let haproxy3: Haproxy;
let admin: Redis;
let dir: string;
const replicas: CliReplica[] = [];
/** Each replica's backend pid (what `whoami` answers through it), by replica id. */
const backendPid = new Map<string, number>();
const opened: Array<{ close(): Promise<void> }> = [];
const auth = { Authorization: `Bearer ${TOKEN}` };

const text = (result: unknown) =>
  ((result as { content: Array<{ text?: string }> }).content[0]?.text ?? '') as string;

async function sdkClient(name: string, front: Haproxy = haproxy): Promise<ClientV1> {
  const client = new ClientV1({ name, version: '1.0.0' });
  await client.connect(
    new HttpV1(front.url, {
      requestInit: { headers: auth },
      reconnectionOptions: {
        initialReconnectionDelay: 100,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 5,
      },
    }),
  );
  opened.push(client);
  return client;
}

/**
 * The replica that owns the POST stream answering request `requestId`, from an event id of
 * that stream (the owner is carried there, not kept in Redis).
 */
function ownerOf(eventId: string, requestId: number): CliReplica | undefined {
  const owner = ownerInEventId(eventId);
  if (owner?.requestId !== requestId) return undefined;
  return replicas.find((r) => r.id === owner.replica);
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis({ path: redis.socket });
  dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-sigkill-'));
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const gatewayConfig = path.join(dir, 'gateway.jsonc');
  writeFileSync(gatewayConfig, JSON.stringify({ store: { heartbeatMs: HEARTBEAT_MS } }));
  // The gateway config's store.redis is overridden by --redis (the test gives both).
  const started = await Promise.all(
    [0, 1, 2, 3].map((i) => {
      const home = path.join(dir, `home-${i}`);
      return startCliReplica({
        id: `cli-replica-${i}`,
        servers: { probe: { command: process.execPath, args: [probe] } },
        redisUrl: `unix://${redis.socket}`,
        tokenFile,
        gatewayConfig,
        home,
      });
    }),
  );
  replicas.push(...started);
  for (const r of replicas) {
    const direct = new ClientV1({ name: 'direct', version: '1' });
    await direct.connect(new HttpV1(r.url, { requestInit: { headers: auth } }));
    backendPid.set(r.id, Number(text(await direct.callTool({ name: 'probe__whoami' }))));
    await direct.close();
  }
  haproxy = await startHaproxy(replicas.map((r) => r.url));
  haproxy1 = await startHaproxy([replicas[0]!.url]);
  haproxy3 = await startHaproxy(replicas.slice(0, 3).map((r) => r.url));
}, 60_000);

afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await haproxy?.close();
  await haproxy1?.close();
  await haproxy3?.close();
  // Every replica's group, then every backend's (a backend has a process group of its own).
  for (const r of replicas) await r.killGroup();
  for (const pid of backendPid.values()) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await admin?.quit();
  await redis?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface LoadRun {
  calls: number;
  errors: string[];
  /** How many calls failed, per client. */
  failedPerClient: number[];
  callsPerSecond: number;
  p50: number;
  p99: number;
}

/** `clients` SDK v1 clients × `calls` calls each through `front`; `halfway` runs once half are done. */
async function loadRun(
  front: Haproxy,
  clients: number,
  calls: number,
  halfway?: () => Promise<void>,
): Promise<LoadRun> {
  const opened = await Promise.all(
    Array.from({ length: clients }, (_, i) => sdkClient(`load-${i}`, front)),
  );
  const latencies: number[] = [];
  const errors: string[] = [];
  const failedPerClient = opened.map(() => 0);
  let done = 0;
  let half: Promise<void> | undefined;
  const started = performance.now();
  await Promise.all(
    opened.map(async (client, c) => {
      for (let i = 0; i < calls; i++) {
        const t = performance.now();
        try {
          // Well under the test's own timeout: a call that waits fails here, by its message.
          await client.callTool({ name: 'probe__whoami' }, undefined, { timeout: 20_000 });
        } catch (error) {
          const cause = (error as { cause?: { message?: string } }).cause?.message;
          errors.push(`${(error as Error).message}${cause ? ` (${cause})` : ''}`);
          failedPerClient[c]!++;
        }
        latencies.push(performance.now() - t);
        if (++done === Math.floor((clients * calls) / 2) && halfway) half = halfway();
      }
    }),
  );
  await half;
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return {
    calls: latencies.length,
    errors,
    failedPerClient,
    callsPerSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

const shownRun = (what: string, r: LoadRun) =>
  `${what}: ${r.calls} calls, ${r.callsPerSecond.toFixed(0)} calls/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors.length} errors`;

describe('mcpkit serve --redis replicas behind HAProxy, one killed with SIGKILL', () => {
  it('bounded load runs, 4 SDK v1 clients × 10 calls: through 1 replica and through 3, no errors', async () => {
    const one = await loadRun(haproxy1, 4, 10);
    const three = await loadRun(haproxy3, 4, 10);
    console.log(shownRun('load, 1 replica', one));
    console.log(shownRun('load, 3 replicas', three));
    expect(one.errors).toEqual([]);
    expect(three.errors).toEqual([]);
    expect(one.calls).toBe(40);
    expect(three.calls).toBe(40);
  });

  it('says where it shares sessions, and /readyz reports the store', async () => {
    for (const r of replicas) {
      expect(r.stderr()).toContain(`replica ${r.id}, sessions shared in unix://${redis.socket}`);
      const res = await fetch(new URL('/readyz', r.url), { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ready: true, store: { state: 'up' } });
    }
  });

  it('a call that finished on a replica killed before the client read it is answered from the event log', async () => {
    const client = await sdkClient('sdk-v1-log');
    // A session's requests land on every replica in turn.
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) seen.add(text(await client.callTool({ name: 'probe__whoami' })));
    expect(seen.size).toBe(3);
    // Raw requests of a second session, to drop the stream at a chosen moment.
    const session = await rawSession(haproxy.url, auth);
    const sessionId = session['mcp-session-id']!;
    expect(sessionId).toBeTruthy();
    const file = path.join(dir, 'release-log');
    const abort = new AbortController();
    const res = await fetch(haproxy.url, {
      method: 'POST',
      headers: session,
      signal: abort.signal,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'probe__wait_for_file', arguments: { path: file } },
      }),
    });
    const eventId = await dropAfterFirstEventId(res, abort);
    const owner = ownerOf(eventId, 9);
    expect(owner).toBeDefined();
    writeFileSync(file, '');
    // The answer is in the stream's log in Redis before the replica dies.
    const log = `mcpkit:{${sessionId}}:e:${eventId.split('_')[0]}`;
    await expect
      .poll(async () => (await admin.lrange(log, 0, -1)).some((e) => JSON.parse(e).final), {
        timeout: 20_000,
      })
      .toBe(true);
    await owner!.kill();
    const resumed = await fetch(haproxy.url, {
      headers: { ...session, 'last-event-id': eventId },
    });
    expect(resumed.status).toBe(200);
    const body = await resumed.text();
    expect(body).toContain(`released by ${file}`);
    expect(body).toMatch(/"id":9/);
    // The SDK client's session goes on, on the two replicas left.
    const alive = replicas.filter((r) => r !== owner).map((r) => String(backendPid.get(r.id)));
    for (let i = 0; i < 4; i++)
      expect(alive).toContain(text(await client.callTool({ name: 'probe__whoami' })));
  });

  it('a load run with a replica SIGKILLed halfway: only its calls in flight fail, each naming it or losing its connection', async () => {
    const victim = replicas.find((r) => r.child.exitCode === null && !r.child.signalCode)!;
    const run = await loadRun(haproxy, 4, 10, () => victim.kill());
    console.log(shownRun(`load, 4 replicas, ${victim.id} SIGKILLed halfway`, run));
    expect(run.calls).toBe(40);
    expect(victim.child.signalCode).toBe('SIGKILL');
    console.log(run.errors);
    // Only calls sent to the dead replica fail. The one each client had in flight: one whose
    // stream had begun is failed by another replica, naming the dead one; one whose POST the
    // dead replica held before its first event is failed by HAProxy: it closes the client's
    // connection (the fetch fails) or answers 502. No replica can tell which call that was,
    // and it is not retried (not idempotent). And at most one more per client: a call
    // HAProxy sent on a pooled connection to the dead replica before it saw that connection
    // closed (it has no health check here). No call waits for a timeout: a stream's head
    // and its priming event go out in one write (tests/server/sse-head-write.test.ts), so a
    // client never holds a stream it cannot resume.
    for (const failed of run.failedPerClient) expect(failed).toBeLessThanOrEqual(2);
    for (const message of run.errors)
      expect(message).toMatch(
        new RegExp(
          `\\(${victim.id}\\) stopped before it answered|^fetch failed|Error POSTing to endpoint: <html><body><h1>502 Bad Gateway`,
        ),
      );
  }, 60_000);

  it('SIGKILL mid-call: the SDK v1 call fails with an error naming the dead replica, the session continues, nothing is left running', async () => {
    const client = await sdkClient('sdk-v1-kill');
    const living = () => replicas.filter((r) => r.child.exitCode === null && !r.child.signalCode);
    expect(living().length).toBe(2);
    const file = path.join(dir, 'release-never');
    // The SDK numbers this session's requests from 0: initialize is 0, this call is 1. Its
    // stream's priming event id (the SDK's resumption token) names the replica answering it.
    let primed: string | undefined;
    const call = client.callTool(
      { name: 'probe__wait_for_file', arguments: { path: file } },
      undefined,
      { onresumptiontoken: (token) => (primed ??= token) },
    );
    const failed = call.then(
      () => undefined,
      (error: Error) => error,
    );
    await expect.poll(() => primed, { timeout: 20_000 }).toBeDefined();
    const owner = ownerOf(primed!, 1);
    expect(owner).toBeDefined();
    const orphan = backendPid.get(owner!.id)!;
    await owner!.kill();
    const error = await failed;
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain(`(${owner!.id}) stopped before it answered`);
    // Later calls of the same session land on the replica left, and work.
    const left = living().map((r) => String(backendPid.get(r.id)));
    expect(left).toHaveLength(1);
    for (let i = 0; i < 3; i++)
      expect(left).toContain(text(await client.callTool({ name: 'probe__whoami' })));
    // The dead replica's backend was running the call: it ends once the call does (its
    // stdin closed with the replica), so nothing of the dead replica keeps running.
    expect(processAlive(orphan)).toBe(true);
    writeFileSync(file, '');
    await expect.poll(() => processAlive(orphan), { timeout: 20_000 }).toBe(false);
    expect(existsSync(file)).toBe(true);
  });

  it('the store unreachable: /readyz answers 503 and /healthz says not ready', async () => {
    const [r] = replicas.filter((x) => x.child.exitCode === null && !x.child.signalCode);
    await admin.quit();
    await redis.close();
    const ready = await fetch(new URL('/readyz', r!.url), { headers: auth });
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ ready: false, store: { state: 'unreachable' } });
    const health = await fetch(new URL('/healthz', r!.url), { headers: auth });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ready: false, store: { state: 'unreachable' } });
    admin = undefined as unknown as Redis;
    redis = undefined as unknown as RedisServer;
  });
});

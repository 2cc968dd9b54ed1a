// The scale-out rows (issue #25): what the Redis store costs over the in-memory store.
//
// The row of the issue, a forwarded call: two gateway replicas in processes of their own
// (forward-replica.mjs: manager + createGateway + listenHttp, an NDJSON echo backend behind
// each, every answer an SSE stream), one with `createMemorySessionStore()`, one with the
// Redis store on a real redis-server; 64 sessions × one call in flight each, timed blocks,
// memory and Redis alternating (the order flips every round). Per block, CPU (user + sys of
// every thread, from /proc/<pid>/task/*/schedstat) per call of the gateway process (the
// target applies to it) and, reported apart, of redis-server; the ratio is the median of
// the rounds' own ratios. Neither the backend nor this driver is counted.
//
// As information, the bare call: one `@mcpkit/server` replica in this process (no backend,
// sequential calls), CPU of this process (replica and client) per call.
// Needs redis-server (scripts/ensure-redis.mjs installs it) and a build. Linux only (/proc).
// Standalone: node bench/scaleout/run.mjs [--quick] [--levers] [--forward-only] [--in-flight <n>]
//   [--baseline <dir>]: also a Redis replica of the build in <dir> (a copy of the repository,
//   built, with its node_modules): before/after paired round by round in one run.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { createMemorySessionStore, listenStreamableHttp, McpServer } from '@mcpkit/server';
import { cpuNs } from '../gateway/setups.mjs';
import { startRedis, stop, waitOutput } from './processes.mjs';
import { openSession, sessionHeaders } from './raw-session.mjs';

const quick = process.argv.includes('--quick');
/** Issue #25: the Redis store adds at most 10 % CPU per forwarded call over the in-memory store. */
const TARGET = 1.1;
/**
 * Many short rounds rather than a few long ones: on this shared 2-core machine a block's
 * CPU per call moves with what else runs, and adjacent blocks see the same.
 */
const FORWARD = {
  rounds: quick ? 5 : 21,
  blockMs: 500,
  warmupMs: quick ? 2000 : 6000,
  /** `--in-flight <n>`: sessions with a call in flight each (64 by default). */
  inFlight: Number(process.argv[process.argv.indexOf('--in-flight') + 1]) || 64,
};
const BARE = { rounds: quick ? 3 : 9, calls: quick ? 200 : 1000 };
const here = path.dirname(fileURLToPath(import.meta.url));
const flag = (name) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
const baseline = flag('--baseline');
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const verdict = (ratio) => `target ≤ ${TARGET.toFixed(2)}×: ${ratio <= TARGET ? 'met' : 'missed'}`;

/** One tools/call over a session, its SSE answer read to the end and checked. */
async function call(url, sessionId, id, name) {
  const res = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(sessionId),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: { text: `call ${id}` } },
    }),
  });
  const body = await res.text();
  if (!body.includes(`"id":${id}`) || body.includes('"error":{'))
    throw new Error(`call ${id} failed: HTTP ${res.status} ${body.slice(0, 200)}`);
}

async function startForwardReplica(
  store,
  options,
  script = path.join(here, 'forward-replica.mjs'),
) {
  const child = spawn(process.execPath, [script, store, JSON.stringify(options ?? {})], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [, url] = await waitOutput(child, /listening on (\S+)/, `forward replica (${store})`);
  return { url: new URL(url), pid: child.pid, stop: () => stop(child) };
}

/**
 * A timed block on one replica: each session keeps one call in flight until `ms` passed.
 * CPU per call (µs) of the replica and of redis-server, and calls per second.
 */
async function forwardBlock(replica, sessions, ms, redisPid) {
  const gw0 = cpuNs(replica.pid);
  const redis0 = cpuNs(redisPid);
  const t0 = performance.now();
  let calls = 0;
  await Promise.all(
    sessions.map(async (session) => {
      while (performance.now() - t0 < ms) {
        await call(replica.url, session.id, ++session.next, 'echo');
        calls++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    calls,
    gateway: (cpuNs(replica.pid) - gw0) / 1000 / calls,
    redis: (cpuNs(redisPid) - redis0) / 1000 / calls,
    callsPerSecond: calls / seconds,
  };
}

/**
 * The replicas compared: the in-memory store and the Redis store as shipped; with
 * `--levers`, also the Redis store with `autoPipelining` (one write per turn of the loop).
 */
const variants = (socket) => [
  { name: 'memory', store: 'memory' },
  { name: 'redis', store: `redis:${socket}` },
  ...(process.argv.includes('--levers')
    ? [{ name: 'redis-pipelined', store: `redis:${socket}`, options: { autoPipelining: true } }]
    : []),
  ...(baseline
    ? [
        {
          name: 'redis-baseline',
          store: `redis:${socket}`,
          script: path.resolve(baseline, 'bench/scaleout/forward-replica.mjs'),
        },
      ]
    : []),
];

async function forwardRow(redis) {
  const replicas = [];
  try {
    for (const v of variants(redis.socket))
      replicas.push({ ...v, ...(await startForwardReplica(v.store, v.options, v.script)) });
    for (const r of replicas)
      r.sessions = await Promise.all(
        Array.from({ length: FORWARD.inFlight }, async () => ({
          id: await openSession(r.url),
          next: 0,
        })),
      );
    const block = (r) => forwardBlock(r, r.sessions, FORWARD.blockMs, redis.pid);
    // Warm-up (the JIT of every process), then the Redis commands per call of one block each.
    for (const r of replicas) await forwardBlock(r, r.sessions, FORWARD.warmupMs, redis.pid);
    const commands = {};
    for (const r of replicas.slice(1)) {
      const before = redis.commands();
      const counted = await block(r);
      const after = redis.commands();
      const perCall = (name) => ((after[name] ?? 0) - (before[name] ?? 0)) / counted.calls;
      commands[r.name] = {
        evalsha: perCall('evalsha'),
        // Every command Redis ran, a script's own ones included.
        all: Object.keys(after).reduce((sum, k) => sum + perCall(k), 0),
      };
    }
    const figures = Object.fromEntries(replicas.map((r) => [r.name, []]));
    const ratios = Object.fromEntries(replicas.slice(1).map((r) => [r.name, []]));
    /** `--baseline`: the Redis replica of this build over the baseline build's, per round. */
    const overBaseline = [];
    for (let round = 0; round < FORWARD.rounds; round++) {
      // Each round starts with the next replica: none is always first or last.
      const order = replicas.map((_, i) => replicas[(i + round) % replicas.length]);
      const got = {};
      for (const r of order) got[r.name] = await block(r);
      for (const r of replicas) figures[r.name].push(got[r.name]);
      for (const name of Object.keys(ratios))
        ratios[name].push(got[name].gateway / got.memory.gateway);
      if (baseline) overBaseline.push(got.redis.gateway / got['redis-baseline'].gateway);
    }
    const m = (name, key) => median(figures[name].map((f) => f[key]));
    const per = (key) => Object.fromEntries(replicas.map((r) => [r.name, m(r.name, key)]));
    return {
      rounds: FORWARD.rounds,
      blockMs: FORWARD.blockMs,
      inFlight: FORWARD.inFlight,
      gatewayCpuUsPerCall: per('gateway'),
      redisServerCpuUsPerCall: per('redis'),
      callsPerSecond: per('callsPerSecond'),
      ratios,
      overMemoryGatewayCpu: Object.fromEntries(
        Object.entries(ratios).map(([name, v]) => [name, median(v)]),
      ),
      redisCommandsPerCall: commands,
      ...(baseline ? { redisOverBaselineGatewayCpu: median(overBaseline), overBaseline } : {}),
      target: TARGET,
    };
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
  }
}

async function bareReplica(store) {
  const server = new McpServer({ info: { name: 'bench', version: '1.0.0' } });
  server.registerTool('echo', { inputSchema: { type: 'object' } }, async (args) => ({
    content: [{ type: 'text', text: JSON.stringify(args) }],
  }));
  return listenStreamableHttp(server, { sessionStore: store, responseMode: 'sse' });
}

/** CPU (user + sys, this process: the replica and the client) per sequential call, in µs. */
async function bareBlock(url, sessionId, calls) {
  const before = process.cpuUsage();
  for (let i = 1; i <= calls; i++) await call(url, sessionId, i, 'echo');
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

async function bareRow(redis) {
  const redisStore = new RedisSessionStore({ redis: { path: redis.socket } });
  const memory = await bareReplica(createMemorySessionStore());
  const shared = await bareReplica(redisStore);
  try {
    const memorySession = await openSession(memory.url);
    const redisSession = await openSession(shared.url);
    await bareBlock(memory.url, memorySession, BARE.calls);
    await bareBlock(shared.url, redisSession, BARE.calls);
    const ratios = [];
    const cpu = { memory: [], redis: [] };
    for (let r = 0; r < BARE.rounds; r++) {
      const m = await bareBlock(memory.url, memorySession, BARE.calls);
      const x = await bareBlock(shared.url, redisSession, BARE.calls);
      cpu.memory.push(m);
      cpu.redis.push(x);
      ratios.push(x / m);
    }
    return {
      rounds: BARE.rounds,
      callsPerRound: BARE.calls,
      cpuUsPerCall: { memory: median(cpu.memory), redis: median(cpu.redis) },
      redisOverMemoryCpu: median(ratios),
    };
  } finally {
    await memory.close();
    await shared.close();
    await redisStore.close();
  }
}

const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-redis-'));
const redis = await startRedis(dir);
try {
  const loadBefore = load();
  const forward = await forwardRow(redis);
  const bare = process.argv.includes('--forward-only') ? undefined : await bareRow(redis);
  const f = forward;
  const us = (v) => `${v.toFixed(0)} µs`;
  let rows = '';
  for (const name of Object.keys(f.ratios)) {
    const ratio = f.overMemoryGatewayCpu[name];
    const c = f.redisCommandsPerCall[name];
    rows +=
      `| scale-out: gateway CPU per forwarded call, ${name} store / in-memory store (one replica, SSE, ${f.inFlight} in flight) | ${us(f.gatewayCpuUsPerCall.memory)} | ${us(f.gatewayCpuUsPerCall[name])} | ${ratio.toFixed(2)}× (${verdict(ratio)}) |\n` +
      `| scale-out: redis-server CPU per forwarded call, ${name} store (${c.evalsha.toFixed(2)} EVALSHA, ${c.all.toFixed(2)} commands in all per call) | ${us(f.redisServerCpuUsPerCall.memory)} | ${us(f.redisServerCpuUsPerCall[name])} | |\n`;
  }
  if (f.redisOverBaselineGatewayCpu !== undefined)
    rows += `| scale-out (information): gateway CPU per forwarded call, Redis store of this build / of --baseline ${baseline} | ${us(f.gatewayCpuUsPerCall['redis-baseline'])} | ${us(f.gatewayCpuUsPerCall.redis)} | ${f.redisOverBaselineGatewayCpu.toFixed(2)}× |\n`;
  if (bare)
    rows += `| scale-out (information): CPU per bare server call, Redis store / in-memory store (no backend, sequential, replica and client in one process) | ${us(bare.cpuUsPerCall.memory)} | ${us(bare.cpuUsPerCall.redis)} | ${bare.redisOverMemoryCpu.toFixed(2)}× |\n`;
  process.stdout.write(rows);
  process.stdout.write(
    `${JSON.stringify({ forward, bare, loadAverage: { before: loadBefore, after: load() } })}\n`,
  );
} finally {
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}

// The load run of issue #25: N clients × M calls through a real HAProxy (round-robin, no
// stickiness) over 1 and over 3 `mcpkit serve --redis` replicas (child processes of the
// built CLI, each with its own stdio backend) sharing 2025 sessions in a real redis-server;
// then 3 replicas with one SIGKILLed halfway. Per run: calls/s, p50 and p99 latency, errors,
// and where the CPU went (each process's user + sys from /proc, per call), the replicas'
// open file descriptors at most, and what Redis holds after the run (memory, keys). Bounded:
// fixed counts, 127.0.0.1 only, stops by itself. Needs a build, redis-server and haproxy
// (scripts/ensure-*.mjs install them). Linux only (/proc).
// Standalone: node bench/scaleout/load.mjs [--quick]
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureHaproxy } from '../../scripts/ensure-haproxy.mjs';
import { startRedis, stop, waitOutput } from './processes.mjs';
import { openSession, sessionHeaders } from './raw-session.mjs';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 10 : 25;
const CLIENTS = quick ? [4, 16] : [4, 16, 64, 128];
const KILL_CLIENTS = 16;
const HEARTBEAT_MS = 1000;
const TOKEN = 'scaleout-load-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
const here = path.dirname(fileURLToPath(import.meta.url));
const cliBin = path.join(here, '../../apps/cli/dist/bin.js');
const backend = path.join(here, 'echo-backend.mjs');
const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-scaleout-load-'));
const tokenFile = path.join(dir, 'token');
writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
const gatewayConfig = path.join(dir, 'gateway.json');
// Every client comes from HAProxy's address: the per-address caps are raised, as SERVE.md
// says to behind a balancer (at their defaults, 100 sessions, 28 of 128 clients got 429).
writeFileSync(
  gatewayConfig,
  JSON.stringify({
    store: { heartbeatMs: HEARTBEAT_MS },
    limits: { maxSessionsPerClient: 10_000, maxConnectionsPerAddress: 10_000 },
  }),
);
/** Every backend seen, killed at the end if still there (a SIGKILLed replica's outlive it). */
const backendPids = new Set();
/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ). */
const TICKS = 100;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/** The last CPU figure read of each process (a killed one keeps what it had used). */
const lastCpu = new Map();

/** User + sys CPU of a process so far, in ms (its last figure once it is gone). */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
    lastCpu.set(pid, ms);
    return ms;
  } catch {
    return lastCpu.get(pid) ?? 0;
  }
}

function childrenOf(pid) {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid)
        out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

function fdCount(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

async function startReplica(id, redisSocket) {
  const home = path.join(dir, `home-${id}`);
  const child = spawn(
    process.execPath,
    [
      cliBin,
      'serve',
      '-c',
      JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [backend] } } }),
      '--http',
      '127.0.0.1:0',
      '--token-file',
      tokenFile,
      '--redis',
      `unix://${redisSocket}`,
      '--replica-id',
      id,
      '--gateway-config',
      gatewayConfig,
    ],
    {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, 'data') },
    },
  );
  const [, url] = await waitOutput(child, /listening on (\S+)/, `replica ${id}`);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    id,
    url: new URL(url),
    pid: child.pid,
    backends: () => {
      const pids = childrenOf(child.pid);
      for (const p of pids) backendPids.add(p);
      return pids;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    /** SIGTERM: the replica closes its sessions and its backend, then exits. */
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    killGroup: async () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
      await exited;
    },
  };
}

async function startHaproxy(replicas) {
  const binary = ensureHaproxy();
  if (!binary) throw new Error('haproxy is missing');
  const port = await freePort();
  const file = path.join(dir, `haproxy-${port}.cfg`);
  writeFileSync(
    file,
    [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  retries 3',
      '  option redispatch 1',
      'frontend front',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...replicas.map((r, i) => `  server r${i} ${r.url.hostname}:${r.url.port}`),
      '',
    ].join('\n'),
  );
  const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'ignore'] });
  for (;;) {
    if (child.exitCode !== null) throw new Error('haproxy did not start');
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.text().then(() => true),
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), pid: child.pid, close: () => stop(child) };
}

const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** `clients` sessions × `calls` calls through `front`; `halfway` runs once half are done. */
async function run({ front, replicas, redis, clients, calls, halfway }) {
  const opened = await Promise.allSettled(
    Array.from({ length: clients }, () => openSession(front.url, auth)),
  );
  const sessions = opened.filter((o) => o.status === 'fulfilled').map((o) => o.value);
  // A session refused at initialize is an error of the run (its calls are not made).
  const refused = opened.filter((o) => o.status === 'rejected').map((o) => o.reason.message);
  const pids = {
    replicas: replicas.map((r) => r.pid),
    backends: replicas.flatMap((r) => r.backends()),
    haproxy: [front.pid],
    redis: [redis.pid],
  };
  const cpuOf = (list) => list.reduce((s, p) => s + cpuMs(p), 0);
  const before = Object.fromEntries(Object.entries(pids).map(([k, v]) => [k, cpuOf(v)]));
  const selfBefore = process.cpuUsage();
  const memoryBefore = redis.memory();
  let maxFds = 0;
  const sampler = setInterval(() => {
    for (const r of replicas) maxFds = Math.max(maxFds, fdCount(r.pid));
    for (const p of pids.replicas) cpuMs(p);
  }, 50);
  const latencies = [];
  const errors = [...refused];
  let done = 0;
  let half;
  const started = performance.now();
  await Promise.all(
    sessions.map(async (sessionId) => {
      for (let i = 1; i <= calls; i++) {
        const t = performance.now();
        try {
          const res = await fetch(front.url, {
            method: 'POST',
            headers: sessionHeaders(sessionId, auth),
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'echo__echo', arguments: { i } },
            }),
          });
          const body = await res.text();
          if (res.status !== 200) errors.push(`HTTP ${res.status}: ${body.slice(0, 120)}`);
          else if (/"error":\{/.test(body))
            errors.push(/"message":"([^"]*)"/.exec(body)?.[1] ?? body.slice(0, 160));
          else if (!body.includes(`"id":${i}`)) errors.push(`no answer: ${body.slice(0, 120)}`);
        } catch (error) {
          errors.push(
            `${error.message}${error.cause ? ` (${error.cause.message ?? error.cause})` : ''}`,
          );
        }
        latencies.push(performance.now() - t);
        if (++done === Math.floor((sessions.length * calls) / 2) && halfway) half = halfway();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await half;
  clearInterval(sampler);
  const total = Math.max(1, sessions.length * calls);
  const used = process.cpuUsage(selfBefore);
  const cpuPerCall = Object.fromEntries(
    Object.entries(pids).map(([k, v]) => [k, ((cpuOf(v) - before[k]) * 1000) / total]),
  );
  cpuPerCall.client = (used.user + used.system) / total;
  latencies.sort((a, b) => a - b);
  const result = {
    replicas: replicas.length,
    clients,
    calls: sessions.length * calls,
    callsPerSecond: total / seconds,
    p50Ms: at(latencies, 0.5),
    p99Ms: at(latencies, 0.99),
    maxMs: latencies.at(-1) ?? 0,
    errors: errors.length,
    errorKinds: [...new Set(errors.map((e) => e.replace(/\d+/g, 'N')))],
    cpuUsPerCall: cpuPerCall,
    maxReplicaFds: maxFds,
    redisBytesPerCall: (redis.memory() - memoryBefore) / total,
    redisKeys: redis.keys(),
    load: load(),
  };
  // Sessions end (DELETE), so the next run starts with an empty Redis.
  await Promise.all(
    sessions.map((s) =>
      fetch(front.url, { method: 'DELETE', headers: sessionHeaders(s, auth) }).then(
        (r) => r.text(),
        () => {},
      ),
    ),
  );
  redis.flush();
  return result;
}

const row = (what, r) => {
  const c = r.cpuUsPerCall;
  return `| ${what} | ${r.replicas} | ${r.clients} | ${r.calls} | ${r.callsPerSecond.toFixed(0)} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.maxMs.toFixed(0)} | ${r.errors} | ${c.replicas.toFixed(0)} / ${c.backends.toFixed(0)} / ${c.haproxy.toFixed(0)} / ${c.redis.toFixed(0)} / ${c.client.toFixed(0)} | ${r.maxReplicaFds} | ${r.redisBytesPerCall.toFixed(0)} | ${r.load} |`;
};

process.stdout.write(
  `scale-out load run (${quick ? 'quick' : 'full'}), ${CALLS} calls per client, load average at start ${load()}\n` +
    '| run | replicas | clients | calls | calls/s | p50 ms | p99 ms | max ms | errors | CPU µs per call: replicas / backends / HAProxy / Redis / client | max fds per replica | Redis bytes kept per call | load average |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
);
const redis = await startRedis(dir);
const started = [];
const results = [];
try {
  for (const count of [1, 3]) {
    const replicas = await Promise.all(
      Array.from({ length: count }, (_, i) => startReplica(`load-${count}-${i}`, redis.socket)),
    );
    started.push(...replicas);
    const front = await startHaproxy(replicas);
    try {
      // A first short run warms every replica (its backend connection, the JIT).
      await run({ front, replicas, redis, clients: 4, calls: 5 });
      for (const clients of CLIENTS) {
        const r = await run({ front, replicas, redis, clients, calls: CALLS });
        results.push({ what: 'steady', ...r });
        process.stdout.write(`${row('steady', r)}\n`);
      }
    } finally {
      await front.close();
      await Promise.all(replicas.map((r) => r.terminate()));
    }
  }
  const replicas = await Promise.all(
    [0, 1, 2].map((i) => startReplica(`load-kill-${i}`, redis.socket)),
  );
  started.push(...replicas);
  const front = await startHaproxy(replicas);
  try {
    await run({ front, replicas, redis, clients: 4, calls: 5 });
    const r = await run({
      front,
      replicas,
      redis,
      clients: KILL_CLIENTS,
      calls: CALLS,
      halfway: () => replicas[0].kill(),
    });
    results.push({ what: 'one SIGKILLed halfway', ...r });
    process.stdout.write(`${row('one SIGKILLed halfway', r)}\n`);
    process.stdout.write(`errors of the kill run: ${JSON.stringify(r.errorKinds)}\n`);
  } finally {
    await front.close();
    await Promise.all(replicas.map((r) => r.terminate()));
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  for (const r of started) await r.killGroup();
  for (const pid of backendPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended with its replica.
    }
  }
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}

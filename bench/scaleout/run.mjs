// The scale-out row (issue #25): CPU per answered tools/call on one replica whose 2025
// sessions are shared through the Redis store, against the same replica with the in-memory
// store, interleaved round by round (memory, redis, memory, …); the ratio is the median of
// the rounds' own ratios. SSE answers, so every call writes its event log. Needs
// redis-server (scripts/ensure-redis.mjs installs it) and a build.
// Standalone: node bench/scaleout/run.mjs [--quick]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { createMemorySessionStore, listenStreamableHttp, McpServer } from '@mcpkit/server';
import { ensureRedis } from '../../scripts/ensure-redis.mjs';
import { openSession, sessionHeaders } from './raw-session.mjs';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 9;
const CALLS = quick ? 200 : 1000;
/** Issue #25: the Redis store adds at most 10 % CPU per call over the in-memory store. */
const TARGET = 1.1;
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function startRedis() {
  const binary = ensureRedis();
  if (!binary) throw new Error('redis-server is missing');
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-redis-'));
  const socket = path.join(dir, 'redis.sock');
  const child = spawn(binary, ['--port', '0', '--unixsocket', socket, '--dir', dir, '--save', ''], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (/ready to accept connections/i.test(out)) resolve();
    });
    child.once('exit', () => reject(new Error(`redis-server exited: ${out}`)));
  });
  return {
    socket,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function replica(store) {
  const server = new McpServer({ info: { name: 'bench', version: '1.0.0' } });
  server.registerTool('echo', { inputSchema: { type: 'object' } }, async (args) => ({
    content: [{ type: 'text', text: JSON.stringify(args) }],
  }));
  return listenStreamableHttp(server, { sessionStore: store, responseMode: 'sse' });
}

/** CPU (user + sys, this process: the replica and the client) per call, in µs. */
async function block(url, sessionId, calls) {
  const before = process.cpuUsage();
  for (let i = 1; i <= calls; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: sessionHeaders(sessionId),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'echo', arguments: { i } },
      }),
    });
    const body = await res.text();
    if (!body.includes(`"id":${i}`)) throw new Error(`call ${i} failed: ${body.slice(0, 200)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

const redis = await startRedis();
const redisStore = new RedisSessionStore({ redis: { path: redis.socket } });
const memory = await replica(createMemorySessionStore());
const shared = await replica(redisStore);
try {
  const memorySession = await openSession(memory.url);
  const redisSession = await openSession(shared.url);
  await block(memory.url, memorySession, CALLS);
  await block(shared.url, redisSession, CALLS);
  const ratios = [];
  const cpu = { memory: [], redis: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const m = await block(memory.url, memorySession, CALLS);
    const x = await block(shared.url, redisSession, CALLS);
    cpu.memory.push(m);
    cpu.redis.push(x);
    ratios.push(x / m);
  }
  const row = {
    rounds: ROUNDS,
    callsPerRound: CALLS,
    cpuUsPerCall: { memory: median(cpu.memory), redis: median(cpu.redis) },
    redisOverMemoryCpu: median(ratios),
    target: TARGET,
  };
  process.stdout.write(
    `| scale-out: CPU per call, Redis store / in-memory store (one replica, SSE, no backend) | ${row.cpuUsPerCall.memory.toFixed(0)} µs | ${row.cpuUsPerCall.redis.toFixed(0)} µs | ${row.redisOverMemoryCpu.toFixed(2)}× (target ≤ ${TARGET.toFixed(2)}×: ${row.redisOverMemoryCpu <= TARGET ? 'met' : 'missed'}) |\n`,
  );
  process.stdout.write(`${JSON.stringify(row)}\n`);
} finally {
  await memory.close();
  await shared.close();
  await redisStore.close();
  await redis.close();
}

// The Redis store's own CPU per forwarded call, without a gateway around it: what a replica
// asks of the store for one SSE call (its last event; the stream's owner is in its event ids
// since 2026-12-07, not in the store) from `n`
// concurrent callers, timed blocks, the store as shipped against the store with
// `autoPipelining`, alternating (the order turns every round); CPU of this process (the
// ioredis client and the store's code) per call, medians of rounds and of per-round ratios.
// A lever's effect on the client side, steadier than a whole replica's CPU on a busy machine.
// Needs redis-server (scripts/ensure-redis.mjs installs it) and a build.
// Standalone: node bench/scaleout/store-cost.mjs [in flight, comma-separated; default 1,8,64]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { startRedis } from './processes.mjs';

const ROUNDS = 15;
const BLOCK_MS = 300;
const inFlight = (process.argv[2] ?? '1,8,64').split(',').map(Number);
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const answer = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}';

const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-store-'));
const redis = await startRedis(dir);
const stores = {
  shipped: new RedisSessionStore({ url: `unix://${redis.socket}` }),
  pipelined: new RedisSessionStore({ url: `unix://${redis.socket}`, autoPipelining: true }),
};
let streams = 0;
/** Each caller: a stream's last event, as a replica keeps it (opening the stream writes nothing). */
async function block(store, callers, ms) {
  const before = process.cpuUsage();
  const t0 = performance.now();
  let calls = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      const session = `store-cost-${c}`;
      while (performance.now() - t0 < ms) {
        const stream = ++streams;
        const event = { stream, seq: 2, prev: 1, data: answer, final: true };
        await store.appendEvent(session, event, 60_000, 256, 60_000);
        calls++;
      }
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

try {
  for (const n of inFlight) {
    const names = Object.keys(stores);
    for (const name of names) await block(stores[name], n, 1500);
    const cpu = Object.fromEntries(names.map((name) => [name, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < names.length; i++) {
        const name = names[(i + r) % names.length];
        cpu[name].push(await block(stores[name], n, BLOCK_MS));
        redis.flush();
      }
    }
    const ratio = median(cpu.pipelined.map((p, i) => p / cpu.shipped[i]));
    process.stdout.write(
      `| Redis store client CPU per call (last event), ${n} in flight | shipped ${median(cpu.shipped).toFixed(1)} µs | autoPipelining ${median(cpu.pipelined).toFixed(1)} µs | ${ratio.toFixed(2)}× | load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} |\n`,
    );
  }
} finally {
  for (const s of Object.values(stores)) await s.close();
  await redis.close();
  rmSync(dir, { recursive: true, force: true });
}

// One gateway setup alone, driven with 64 calls in flight for a fixed time after a warm-up:
// the steady-state throughput and the intermediary's CPU per call, without the interleaving of
// run.mjs. Useful to compare builds (run it from two checkouts, alternating) and to profile
// the in-flight path (MCPKIT_BENCH_GATEWAY_CPU_PROF=<dir>, see setups.mjs).
// `inFlight` 1 drives it sequentially: the profile is then the path of one lone call.
// Usage: node bench/gateway/steady.mjs [setup=mcpkit-serve] [seconds=8] [stdio|http=http] [inFlight=64]   (after `pnpm build`)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeShared, cpuNs, openSetup } from './setups.mjs';

const [setup = 'mcpkit-serve', seconds = '8', transport = 'http', inFlight = '64'] =
  process.argv.slice(2);
const IN_FLIGHT = Number(inFlight);
const WARMUP = 3000;
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-steady-'));
const s = await openSetup(transport, setup, home);
try {
  const call = () => s.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  for (let i = 0; i < WARMUP; i++) await call();
  let calls = 0;
  const end = Date.now() + Number(seconds) * 1000;
  const cpu0 = cpuNs(s.pid);
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (Date.now() < end) {
        await call();
        calls++;
      }
    }),
  );
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = (cpuNs(s.pid) - cpu0) / 1e3 / calls;
  process.stdout.write(
    `${transport} ${setup}, ${IN_FLIGHT} in flight: ${calls} calls, ${(calls / wall).toFixed(0)} calls/s, ${cpu.toFixed(1)} µs CPU per call\n`,
  );
} finally {
  await s.close().catch(() => {});
  await closeShared();
  rmSync(home, { recursive: true, force: true });
}

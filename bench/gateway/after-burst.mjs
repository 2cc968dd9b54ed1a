// One HTTP gateway setup alone: what its sequential calls cost right after a burst with 64
// calls in flight (as `run.mjs` runs its rounds: a sequential block follows the previous
// round's in-flight blocks), or after an idle gap instead. Each of <rounds> rounds: the burst
// (or the gap), then 300 sequential calls timed one by one; prints the p50 and p90 of all
// those calls and the intermediary's CPU per sequential call (all its threads, schedstat).
// Usage: node bench/gateway/after-burst.mjs <setup> [burst ms, 0 = an idle gap of 250 ms] [rounds=8]
// (setups: setups.mjs; after `pnpm build`). Compare floor-proxy and mcpkit-serve, alternating.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeShared, cpuNs, openSetup } from './setups.mjs';

const [setup = 'mcpkit-serve', burstArg = '250', roundsArg = '8'] = process.argv.slice(2);
const burstMs = Number(burstArg);
const SEQUENTIAL = 300;
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-burst-'));
const s = await openSetup('http', setup, home);
try {
  const call = () => s.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  for (let i = 0; i < 3000; i++) await call();
  const times = [];
  let cpu = 0;
  for (let round = 0; round < Number(roundsArg); round++) {
    if (burstMs > 0) {
      const end = performance.now() + burstMs;
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          while (performance.now() < end) await call();
        }),
      );
    } else await new Promise((resolve) => setTimeout(resolve, 250));
    const cpu0 = cpuNs(s.pid);
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t0 = process.hrtime.bigint();
      await call();
      times.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    cpu += cpuNs(s.pid) - cpu0;
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(1);
  process.stdout.write(
    `${setup}, ${burstMs > 0 ? `after ${burstMs} ms with 64 in flight` : 'after 250 ms idle'}: p50 ${at(0.5)} µs, p90 ${at(0.9)} µs, ${(cpu / 1e3 / times.length).toFixed(1)} µs CPU per sequential call (${times.length} calls)\n`,
  );
} finally {
  await s.close().catch(() => {});
  await closeShared();
  rmSync(home, { recursive: true, force: true });
}

// One HTTP gateway setup alone: what its sequential calls cost right after a burst with 64
// calls in flight (as `run.mjs` runs its rounds: a sequential block follows the previous
// round's in-flight blocks), or after an idle gap instead. Each of <rounds> rounds: the burst
// (or the gap), then 300 sequential calls timed one by one; prints the p50 and p90 of all
// those calls and the intermediary's CPU per sequential call (all its threads, schedstat).
// On stderr, a line per round: its p50, and per sequential call the intermediary's main
// thread and other threads' CPU, its main thread's voluntary and involuntary context
// switches (a sleep, and a preemption: where the scheduler put the three processes on the
// machine's CPUs) and its minor page faults.
// Usage: node bench/gateway/after-burst.mjs <setup> [burst ms, 0 = an idle gap of 250 ms] [rounds=8] [http|stdio]
// (setups: setups.mjs; after `pnpm build`). Compare floor-proxy and mcpkit-serve, alternating.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeShared, openSetup, threadCpuNs } from './setups.mjs';

const [setup = 'mcpkit-serve', burstArg = '250', roundsArg = '8', transport = 'http'] =
  process.argv.slice(2);
const burstMs = Number(burstArg);
const SEQUENTIAL = 300;

/** The process's main-thread and other threads' CPU (ns), its main thread's switches, its faults. */
function counters(pid) {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'latin1');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
  // /proc/<pid>/stat: the fields after the command's closing parenthesis; minflt is the 8th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const minflt = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
  return {
    ...threadCpuNs(pid),
    voluntary: field('voluntary_ctxt_switches'),
    involuntary: field('nonvoluntary_ctxt_switches'),
    minflt,
  };
}

const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-burst-'));
const s = await openSetup(transport, setup, home);
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
    const before = counters(s.pid);
    const round = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const t0 = process.hrtime.bigint();
      await call();
      round.push(Number(process.hrtime.bigint() - t0) / 1e3);
    }
    const after = counters(s.pid);
    cpu += after.main + after.others - before.main - before.others;
    const per = (key, scale = 1) => (after[key] - before[key]) / scale / SEQUENTIAL;
    times.push(...round);
    round.sort((a, b) => a - b);
    process.stderr.write(
      `round ${String(times.length / SEQUENTIAL).padStart(2)}: p50 ${round[SEQUENTIAL / 2].toFixed(1)} µs; per call: CPU main ${per('main', 1e3).toFixed(1)} µs, others ${per('others', 1e3).toFixed(1)} µs; switches voluntary ${per('voluntary').toFixed(2)}, involuntary ${per('involuntary').toFixed(2)}; minor faults ${per('minflt').toFixed(3)}\n`,
    );
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(times.length * q))].toFixed(1);
  process.stdout.write(
    `${setup} (${transport}), ${burstMs > 0 ? `after ${burstMs} ms with 64 in flight` : 'after 250 ms idle'}: p50 ${at(0.5)} µs, p90 ${at(0.9)} µs, ${(cpu / 1e3 / times.length).toFixed(1)} µs CPU per sequential call (${times.length} calls)\n`,
  );
} finally {
  await s.close().catch(() => {});
  await closeShared();
  rmSync(home, { recursive: true, force: true });
}

// Instructions per forwarded call, counted rather than timed (issue #21 item 5): each
// intermediary runs under valgrind's callgrind (its backend child natively), driven by one
// McpClient with sequential `tools/call echo`. After a warm-up the counters are zeroed and
// dumped after segments of S, L, S and L calls (`callgrind_control -z/-d`); each (L − S)
// pair gives (I(L) − I(S)) / (L − S) instructions per call, so what a dump itself costs, and
// anything else that happens once per segment, cancels out. A GC or a TurboFan compile that
// lands in one segment and not the other moves a pair by a few thousand; the two pairs show
// how much. The count does not depend on the machine's load, which the timed rows do.
// Usage: node bench/gateway/instructions.mjs [stdio|http] [setups, comma-separated]
//        [warm-up calls] [S] [L]       (after `pnpm build`; installs Debian's valgrind when
//        missing and run as root, as scripts/ensure-debian-binary.mjs does)
// Defaults: both transports in turn, floor-proxy,mcpkit-serve, 6000, 2000, 6000.
// `MCPKIT_BENCH_INSTRUCTIONS_KEEP=<dir>`: the dumps are copied there (callgrind.<pid>.<n>; the
// fourth is the last long segment), for callgrind_annotate. With
// `MCPKIT_BENCH_GATEWAY_NODE_FLAGS=--perf-basic-prof` the gateway also writes
// /tmp/perf-<pid>.map, which names its JIT code's addresses.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDebianBinary } from '../../scripts/ensure-debian-binary.mjs';
import { openSetup } from './setups.mjs';

const [
  transportArg = 'stdio,http',
  setupsArg = 'floor-proxy,mcpkit-serve',
  warmArg = '6000',
  shortArg = '2000',
  longArg = '6000',
] = process.argv.slice(2);
const [warm, short, long] = [warmArg, shortArg, longArg].map(Number);
if (!(long > short && short > 0 && warm >= 0)) {
  console.error('instructions.mjs: want warm-up ≥ 0 and L > S > 0');
  process.exit(2);
}
const valgrind = ensureDebianBinary({
  name: 'instructions.mjs',
  binary: '/usr/bin/valgrind',
  debianPackage: 'valgrind',
  envVar: 'MCPKIT_VALGRIND',
  purpose: 'the instruction counts',
});
if (!valgrind) process.exit(2);
// callgrind_control comes in the same package, beside valgrind.
const callgrindControl = path.join(path.dirname(valgrind), 'callgrind_control');

const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-instructions-'));
const out = path.join(home, 'callgrind');
process.env.MCPKIT_BENCH_GATEWAY_WRAP = [
  valgrind,
  '--tool=callgrind',
  '-q',
  `--callgrind-out-file=${out}.%p`,
  '--dump-instr=no',
  '--dump-line=no',
].join(' ');

/** Dumps `pid`'s counters since the last zero or dump; returns the instructions counted. */
function dump(pid) {
  const before = new Set(readdirSync(home));
  const r = spawnSync(callgrindControl, ['-d', String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`callgrind_control -d ${pid}: ${r.stderr || r.stdout}`);
  const fresh = readdirSync(home).filter((f) => !before.has(f) && f.startsWith(`callgrind.${pid}`));
  if (fresh.length !== 1)
    throw new Error(`callgrind_control -d ${pid} wrote ${fresh.length} files`);
  const keep = process.env.MCPKIT_BENCH_INSTRUCTIONS_KEEP;
  if (keep) {
    mkdirSync(keep, { recursive: true });
    copyFileSync(path.join(home, fresh[0]), path.join(keep, fresh[0]));
  }
  const text = readFileSync(path.join(home, fresh[0]), 'latin1');
  const total = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!total) throw new Error(`no total in ${fresh[0]}`);
  return Number(total[1]);
}

const fmt = (n) => `${(n / 1000).toFixed(1)}k`;
const results = {};
try {
  for (const transport of transportArg.split(',')) {
    results[transport] = {};
    for (const name of setupsArg.split(',')) {
      const started = Date.now();
      const s = await openSetup(transport, name, home);
      try {
        const call = () => s.client.callTool({ name: 'echo', arguments: { text: 'hello' } });
        for (let i = 0; i < warm; i++) await call();
        const zero = spawnSync(callgrindControl, ['-z', String(s.pid)], { encoding: 'utf8' });
        if (zero.status !== 0) throw new Error(`callgrind_control -z: ${zero.stderr}`);
        const counts = [];
        for (const n of [short, long, short, long]) {
          for (let i = 0; i < n; i++) await call();
          counts.push(dump(s.pid));
        }
        const perCall = [
          (counts[1] - counts[0]) / (long - short),
          (counts[3] - counts[2]) / (long - short),
        ];
        results[transport][name] = perCall;
        console.error(
          `${transport} ${name}: ${perCall.map(fmt).join(' / ')} instructions per call ` +
            `(segments ${counts.map(fmt).join(', ')}; ${((Date.now() - started) / 1000).toFixed(0)} s)`,
        );
      } finally {
        await s.close();
      }
    }
    const floor = results[transport]['floor-proxy'];
    for (const [name, perCall] of Object.entries(results[transport])) {
      if (name === 'floor-proxy' || !floor) continue;
      const ratios = perCall.map((v, k) => v / floor[k]);
      console.log(
        `${transport}: ${name} ${perCall.map(fmt).join(' / ')} against floor-proxy ` +
          `${floor.map(fmt).join(' / ')} instructions per forwarded call: ` +
          `${ratios.map((r) => `${r.toFixed(3)}×`).join(' / ')}`,
      );
    }
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
}

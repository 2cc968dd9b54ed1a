// The CLI rows (issue #12): start-up and whole-command wall time of the built CLI
// (apps/cli/dist, `pnpm build` first) beside what it is measured against, each pair run
// back to back and the pairs interleaved (A, B, A, B …); a row's ratio is the median of
// the per-pair ratios, so a machine that drifts during the run moves both sides alike.
//   node bench/cli/run.mjs [--quick]
// `pnpm bench` calls runCliRows() at its end.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// The package's bin (src/launcher.ts): what an installed `mcpkit` runs.
const cli = path.join(root, 'apps/cli/dist/bin.cjs');
const demo = path.join(root, 'examples/demo.mcp.json');
const floor = path.join(here, 'tools-floor.mjs');

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const quantile = (values, q) => {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.max(0, Math.round(q * (v.length - 1))))];
};

/**
 * The CPU time (user + sys, in clock ticks) of this process's children that have been waited
 * for, from /proc/self/stat (Linux); undefined elsewhere. One run's difference is coarse (a
 * tick is 10 ms), but summed over the pairs it gives each side's CPU time.
 */
function childCpuTicks() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces): cutime and cstime are the 16th and 17th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[13]) + Number(fields[14]);
  } catch {
    return undefined;
  }
}

const loadAverage = () => os.loadavg()[0];

/** One run's wall time in ms; a run that fails ends the bench (a figure of a failure is no figure). */
function wallMs(argv, options) {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0)
    throw new Error(
      `bench/cli: ${argv.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).trim().split('\n').slice(-3).join(' | ')}`,
    );
  return ms;
}

/** `pairs` rounds of A then B after `warmup` rounds not counted. */
function paired(a, b, { pairs, warmup = 2, options }) {
  for (let i = 0; i < warmup; i++) {
    wallMs(a, options);
    wallMs(b, options);
  }
  const aMs = [];
  const bMs = [];
  const ratios = [];
  let aTicks = 0;
  let bTicks = 0;
  const load0 = loadAverage();
  for (let i = 0; i < pairs; i++) {
    const t0 = childCpuTicks();
    const x = wallMs(a, options);
    const t1 = childCpuTicks();
    const y = wallMs(b, options);
    const t2 = childCpuTicks();
    aMs.push(x);
    bMs.push(y);
    ratios.push(x / y);
    if (t0 !== undefined) {
      aTicks += t1 - t0;
      bTicks += t2 - t1;
    }
  }
  return {
    pairs,
    /** Summed CPU time of A's runs over B's: what the load moves less than wall time. */
    cpuRatio: bTicks > 0 ? aTicks / bTicks : undefined,
    loadAverage: [load0, loadAverage()],
    aMs: median(aMs),
    bMs: median(bMs),
    ratio: median(ratios),
    ratioLow: quantile(ratios, 0.25),
    ratioHigh: quantile(ratios, 0.75),
  };
}

/** A home and a project of their own: the machine's config is never read. */
function sandbox() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcpkit-bench-cli-'));
  const home = path.join(dir, 'home');
  const project = path.join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  // A small config: three project servers of three kinds (list starts none of them).
  writeFileSync(
    path.join(project, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
        docs: { type: 'http', url: 'https://docs.example/mcp', headers: { 'X-Team': 'a' } },
        legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      },
    }),
  );
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local/share'),
    XDG_STATE_HOME: path.join(home, '.local/state'),
  };
  return { dir, project, env };
}

export function runCliRows({
  quick = false,
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const box = sandbox();
  const node = process.execPath;
  const options = { cwd: box.project, env: box.env };
  const n = (full) => (quick ? Math.max(3, Math.round(full / 6)) : full);
  try {
    log('[cli] mcpkit --version vs node -e 0');
    const version = paired([node, cli, '--version'], [node, '-e', '0'], { pairs: n(40), options });
    log('[cli] mcpkit list vs node -e 0');
    const list = paired([node, cli, 'list'], [node, '-e', '0'], { pairs: n(40), options });
    log('[cli] mcpkit tools (demo server) vs the raw floor');
    const tools = paired([node, cli, '--strict-config', '-c', demo, 'tools'], [node, floor, demo], {
      pairs: n(20),
      warmup: 1,
      options,
    });
    const rows = [
      ['`mcpkit --version` vs `node -e 0`', version],
      ['`mcpkit list` (3 servers) vs `node -e 0`', list],
      ['`mcpkit tools` (demo server) vs the raw floor', tools],
    ];
    const header = [
      'CLI wall time (paired, interleaved)',
      'pairs',
      'mcpkit (ms, median)',
      'baseline (ms, median)',
      'median of per-pair ratios',
      'per-pair ratios, 25th–75th',
      'CPU time, sum / sum',
      'load average',
    ];
    const table = [
      header,
      header.map(() => '---'),
      ...rows.map(([label, r]) => [
        label,
        String(r.pairs),
        r.aMs.toFixed(0),
        r.bMs.toFixed(0),
        `${r.ratio.toFixed(2)}×`,
        `${r.ratioLow.toFixed(2)}–${r.ratioHigh.toFixed(2)}×`,
        r.cpuRatio === undefined ? 'n/a' : `${r.cpuRatio.toFixed(2)}×`,
        r.loadAverage.map((l) => l.toFixed(1)).join('–'),
      ]),
    ]
      .map((r) => `| ${r.join(' | ')} |`)
      .join('\n');
    const target = (label, r, limit, what) => ({
      label,
      value: r.ratio,
      met: r.ratio <= limit,
      what,
      cpuRatio: r.cpuRatio,
      loadAverage: Math.max(...r.loadAverage),
    });
    const targets = [
      target('mcpkit --version wall time', version, 1.3, '≤ 1.3× node -e 0'),
      target('mcpkit list wall time (3 servers)', list, 2.0, '≤ 2.0× node -e 0'),
      target('mcpkit tools wall time, demo server', tools, 1.3, '≤ 1.3× the raw floor'),
    ];
    return { table, targets, figures: { version, list, tools } };
  } finally {
    rmSync(box.dir, { recursive: true, force: true });
  }
}

/** A target line; the CPU-time ratio and the load average beside the wall-time ratio it judges. */
export function cliTargetLine(t) {
  const cpu = t.cpuRatio === undefined ? '' : `, CPU time ${t.cpuRatio.toFixed(2)}×`;
  const load =
    t.loadAverage === undefined ? '' : `, load average up to ${t.loadAverage.toFixed(1)}`;
  return `- ${t.met ? 'met' : 'MISSED'}: ${t.label}: ${t.value.toFixed(2)}× (target ${t.what}${cpu}${load})`;
}

/** What `pnpm bench` prints at its end: the table, then the targets. */
export function printCliRows(options) {
  const { table, targets } = runCliRows(options);
  process.stdout.write(`\n${table}\n\nTargets:\n${targets.map(cliTargetLine).join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printCliRows({ quick: process.argv.includes('--quick') });
}

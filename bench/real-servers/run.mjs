// The real-server row (issue finding 17): `mcpkit tools --json` over the servers of
// tests/real-servers/servers.mcp.json (real MCP servers from npm, offline) against the
// official SDK v1 client connecting the same servers with Promise.all and listing their
// tools (sdk-list.mjs), each a whole process, in paired interleaved rounds (A, B, A, B …);
// the ratio is the median of the per-pair ratios. Two pairs: every list works (the suite's
// servers less supabase), and the same with supabase, whose tools/list fails offline.
//   node bench/real-servers/run.mjs [--rounds N] [--pool N] [--working-only]
// `--pool N` sets MCP_SERVER_CONNECTION_BATCH_SIZE for the CLI (the manager's local pool);
// `--working-only` runs the first pair alone.
// `pnpm bench` calls printRealServerRows() at its end. Needs `pnpm build` and tests/'s
// dev dependencies installed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const cli = path.join(root, 'apps/cli/dist/bin.js');
const suiteConfig = path.join(root, 'tests/real-servers/servers.mcp.json');
const sdkList = path.join(here, 'sdk-list.mjs');
/** The server whose tools/list fails offline. */
const failing = 'supabase';

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

/** One whole process's wall time in ms; `ok` lists the exit codes that count as a run. */
function wallMs(argv, options, ok = [0]) {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (!ok.includes(r.status))
    throw new Error(
      `bench/real-servers: ${argv.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).trim().split('\n').slice(-3).join(' | ')}`,
    );
  return { ms, stdout: r.stdout.toString() };
}

/** A home, a data folder and the config (servers run in its folder), as the suite has them. */
function sandbox() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcpkit-bench-real-'));
  const home = path.join(dir, 'home');
  const data = path.join(dir, 'data');
  mkdirSync(home);
  mkdirSync(path.join(data, 'files'), { recursive: true });
  symlinkSync(path.join(root, 'tests/node_modules'), path.join(dir, 'modules'));
  const all = JSON.parse(readFileSync(suiteConfig, 'utf8'));
  const working = { mcpServers: { ...all.mcpServers } };
  delete working.mcpServers[failing];
  writeFileSync(path.join(dir, 'all.mcp.json'), JSON.stringify(all));
  writeFileSync(path.join(dir, 'working.mcp.json'), JSON.stringify(working));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    MCPKIT_REAL_MODULES: path.join(dir, 'modules'),
    MCPKIT_REAL_DATA: data,
  };
  return {
    dir,
    env,
    configs: { working: path.join(dir, 'working.mcp.json'), all: path.join(dir, 'all.mcp.json') },
    servers: {
      working: Object.keys(working.mcpServers).length,
      all: Object.keys(all.mcpServers).length,
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function countTools(stdout) {
  const doc = JSON.parse(stdout);
  return doc.servers.reduce((n, s) => n + (s.tools?.length ?? 0), 0);
}

/** `rounds` pairs of (mcpkit, SDK v1) after one warm-up pair. */
function pair(box, config, { rounds, pool, log, label }) {
  const env = pool ? { ...box.env, MCP_SERVER_CONNECTION_BATCH_SIZE: String(pool) } : box.env;
  const a = [
    process.execPath,
    cli,
    '--config',
    config,
    '--strict-config',
    '--no-roots',
    'tools',
    '--json',
  ];
  const b = [process.execPath, sdkList, config];
  const options = { cwd: path.join(box.dir, 'home'), env };
  // `tools` exits 1 when a server's list failed; the SDK script always exits 0.
  const okA = [0, 1];
  wallMs(a, options, okA);
  wallMs(b, { ...options, env: box.env });
  const aMs = [];
  const bMs = [];
  const ratios = [];
  let tools;
  for (let i = 0; i < rounds; i++) {
    const x = wallMs(a, options, okA);
    const y = wallMs(b, { ...options, env: box.env });
    aMs.push(x.ms);
    bMs.push(y.ms);
    ratios.push(x.ms / y.ms);
    tools = { mcpkit: countTools(x.stdout), sdk: countTools(y.stdout) };
    log(
      `[real-servers] ${label} round ${i + 1}: mcpkit ${x.ms.toFixed(0)} ms, SDK v1 ${y.ms.toFixed(0)} ms (${(x.ms / y.ms).toFixed(2)}×)`,
    );
  }
  return { rounds, aMs: median(aMs), bMs: median(bMs), ratio: median(ratios), ratios, tools };
}

export function runRealServerRows({ rounds = 5, pool, log = () => {}, workingOnly = false } = {}) {
  const box = sandbox();
  try {
    const working = pair(box, box.configs.working, { rounds, pool, log, label: 'all lists work' });
    if (workingOnly) {
      log(
        `[real-servers] all lists work: ${working.ratio.toFixed(2)}× (median of ${rounds} pairs)`,
      );
      return { table: '', targets: [], figures: { working } };
    }
    const failingOne = pair(box, box.configs.all, { rounds, pool, log, label: `with ${failing}` });
    const fmt = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
    const row = (label, r) =>
      `| ${label} | ${fmt(r.aMs)} | ${fmt(r.bMs)} | ${r.ratio.toFixed(2)}× | ${r.tools.mcpkit} / ${r.tools.sdk} |`;
    const table = [
      `| real servers from npm, ${rounds} paired rounds${pool ? `, local pool ${pool}` : ''} | mcpkit tools --json (ms, median) | SDK v1 Promise.all + tools/list (ms, median) | mcpkit / SDK v1 (paired) | tools listed (mcpkit / SDK v1) |`,
      '| --- | --- | --- | --- | --- |',
      row(`${box.servers.working} servers, every list works`, working),
      row(`${box.servers.all} servers, ${failing}'s tools/list fails`, failingOne),
    ].join('\n');
    const target = (label, r, limit) => ({
      label,
      value: r.ratio,
      met: r.ratio <= limit,
      what: `≤ ${limit}× the SDK v1 client with Promise.all`,
    });
    return {
      table,
      targets: [
        target('mcpkit tools --json, real servers', working, 0.7),
        target(`mcpkit tools --json, real servers with one failing list`, failingOne, 0.75),
      ],
      figures: { working, failingOne },
    };
  } finally {
    box.dispose();
  }
}

export function realTargetLine(t) {
  return `- ${t.met ? 'met' : 'MISSED'}: ${t.label}: ${t.value.toFixed(2)}× (target ${t.what})`;
}

/** What `pnpm bench` prints at its end: the table, then the targets. */
export function printRealServerRows(options) {
  const { table, targets } = runRealServerRows(options);
  if (!table) return;
  process.stdout.write(`\n${table}\n\nTargets:\n${targets.map(realTargetLine).join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : undefined;
  };
  printRealServerRows({
    rounds: arg('--rounds') ?? 5,
    pool: arg('--pool'),
    workingOnly: process.argv.includes('--working-only'),
    log: (s) => process.stderr.write(`${s}\n`),
  });
}

// mcpkit benchmark: our stdio client beside the official SDK clients and the raw floor.
// Each figure is the median of several runs, each run in a fresh worker process. The
// sequential scenario interleaves the floor with each client run by run and gives its
// ratios as the median of per-pair ratios (see sequential.mjs).
// Usage: node run.mjs [--quick] [--sequential-only] [--out results/latest.json]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runManagerBench, targetLine } from './manager/run.mjs';
import { median, pairedRounds, pairedSequential } from './sequential.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const outIndex = process.argv.indexOf('--out');
const outFile = path.resolve(
  here,
  outIndex > 0 ? process.argv[outIndex + 1] : 'results/latest.json',
);
const runs = (n) => (quick ? Math.min(n, 2) : n);
// Enough paired rounds that two back-to-back runs agree within 10 % on this 2-vCPU VM.
const SEQUENTIAL_ROUNDS = 25;
const sequentialOnly = process.argv.includes('--sequential-only');

const clients = ['floor', 'mcpkit', 'sdk-v1', 'sdk-v2'];
const MB = 1024 * 1024;

function worker(client, scenario, server = 'echo', ...extra) {
  const r = spawnSync(
    process.execPath,
    [path.join(here, 'worker.mjs'), client, scenario, server, ...extra],
    {
      encoding: 'utf8',
      timeout: 300_000,
      cwd: here,
      // Some clients flood stderr with warnings (thousands of lines): keep them all.
      maxBuffer: 512 * 1024 * 1024,
    },
  );
  const line = r.stdout.trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    return { failed: (r.stderr || `exit ${r.status}`).trim().split('\n').slice(-1)[0] };
  }
}

function repeat(n, fn) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(fn());
  const failed = results.find((r) => r.failed);
  if (failed && results.every((r) => r.failed)) return { failed: failed.failed };
  const keys = new Set(results.flatMap((r) => Object.keys(r)));
  const out = {};
  for (const k of keys) if (k !== 'failed') out[k] = median(results.map((r) => r[k]));
  return out;
}

function importCost(expression) {
  const samples = [];
  for (let i = 0; i < runs(9); i++) {
    const t = process.hrtime.bigint();
    execFileSync(process.execPath, ['--input-type=module', '-e', expression], { cwd: here });
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(samples);
}

const log = (s) => process.stderr.write(`${s}\n`);
const results = { date: new Date().toISOString(), quick, machine: {}, figures: {} };
results.machine = {
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
};

const fmt = (v, digits = 1) =>
  v === undefined ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(digits);

function machineLine() {
  const m = results.machine;
  return `mcpkit benchmark, ${results.date.slice(0, 10)}, ${m.cpu} × ${m.cores}, ${m.memoryGiB} GiB, Node ${m.node}${quick ? ' (quick)' : ''}`;
}

// The sequential rows with every client's paired ratio to the floor.
function sequentialTable(seq) {
  const others = sequentialClients;
  const all = ['floor', ...others];
  const header = [
    `sequential stdio, ${seq.rounds} paired rounds`,
    ...all.map((c) => `${c} (median)`),
    ...others.map((c) => `${c} / floor (paired)`),
    'mcpkit / SDK v1 (paired)',
    'mcpkit / floor-detached (paired)',
  ];
  const x = (v) => (v === undefined ? 'n/a' : `${v.toFixed(2)}×`);
  const rowsOut = [
    ['tools/call p50 (µs)', 'p50Us'],
    ['tools/call p99 (µs)', 'p99Us'],
    ['client CPU per call (µs)', 'cpuPerCallUs'],
  ].map(([label, key]) => [
    label,
    ...all.map((c) => (seq.figures[c].failed ? 'fails' : fmt(seq.figures[c][key]))),
    ...others.map((c) => x(seq.vsFloor[c][key])),
    x(seq.vsSdkV1[key]),
    x(seq.vsDetached?.[key]),
  ]);
  return [header, header.map(() => '---'), ...rowsOut]
    .map((r) => `| ${r.join(' | ')} |`)
    .join('\n');
}

// Sequential latency and CPU: paired rounds (floor, mcpkit, sdk-v1, sdk-v2, floor, …).
log('[sequential] paired rounds');
// floor-detached: the floor with its server in a session of its own, as StdioTransport
// spawns one; it shows what that spawn alone costs (see the README).
const sequentialClients = [...clients.filter((c) => c !== 'floor'), 'floor-detached'];
const sequential = pairedSequential({
  clients: sequentialClients,
  rounds: quick ? 3 : SEQUENTIAL_ROUNDS,
  runOne: (client) => worker(client, 'latency'),
  log,
});
results.sequential = {
  rounds: sequential.rounds,
  vsFloor: sequential.vsFloor,
  vsSdkV1: sequential.vsSdkV1,
  vsDetached: sequential.vsDetached,
};
for (const client of clients) results.figures[client] = { latency: sequential.figures[client] };
if (sequentialOnly) {
  const text = sequentialTable(sequential);
  results.table = text;
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(
    outFile,
    `${JSON.stringify({ ...results, samples: sequential.samples }, null, 2)}\n`,
  );
  process.stdout.write(`${machineLine()}\n\n${text}\n`);
  log(`\nwritten: ${path.relative(process.cwd(), outFile)}`);
  process.exit(0);
}

// 64 in flight, paired rounds as the sequential ones (floor, mcpkit, sdk-v1, sdk-v2,
// floor-detached, floor, …): one client after all the floor's runs put minutes of the
// machine's drift between them, and the load on this VM moves by 2× in a minute.
log('[64 in flight] paired rounds');
const inFlightClients = [...clients.filter((c) => c !== 'floor'), 'floor-detached'];
const inFlight = pairedRounds({
  clients: inFlightClients,
  keys: ['callsPerSec', 'cpuPerCallUs'],
  rounds: runs(5),
  runOne: (client) => worker(client, 'throughput'),
  what: '64 in flight',
  log,
});
for (const client of clients) results.figures[client].throughput = inFlight.figures[client];
results.inFlight = {
  rounds: inFlight.rounds,
  vsFloor: inFlight.vsFloor,
  vsSdkV1: inFlight.vsSdkV1,
  vsDetached: inFlight.vsDetached,
  floorDetached: inFlight.figures['floor-detached'],
};
for (const client of clients) {
  log(`[${client}] connect`);
  const f = results.figures[client];
  f.connect = repeat(runs(3), () => worker(client, 'connect'));
  for (const size of [1, 10, 50]) {
    log(`[${client}] ${size} MB result`);
    f[`big${size}`] = repeat(size === 1 ? runs(5) : runs(3), () =>
      worker(client, 'big', 'echo', String(size * MB)),
    );
  }
}
log('[sdk-v1, read-buffer cap lifted] 10 and 50 MB results');
results.figures['sdk-v1-lifted'] = {
  big10: repeat(runs(3), () => worker('sdk-v1', 'big', 'echo', String(10 * MB), 'liftCap')),
  // Quadratic buffering makes this one take half a minute: one run.
  big50: repeat(1, () => worker('sdk-v1', 'big', 'echo', String(50 * MB), 'liftCap')),
};
log('[SDK-built server] latency');
results.figures.sdkServer = {
  mcpkit: repeat(runs(3), () => worker('mcpkit', 'latency', 'sdk')),
  'sdk-v1': repeat(runs(3), () => worker('sdk-v1', 'latency', 'sdk')),
};
const httpClients = ['http-floor', 'http-mcpkit', 'http-sdk-v1'];
results.figures.http = {};
// Paired rounds too (http-floor, http-mcpkit, http-sdk-v1, http-floor, …), each scenario.
const httpPaired = {};
for (const [scenario, keys] of [
  ['latency', ['p50Us', 'p99Us', 'cpuPerCallUs', 'listenerWarnings']],
  ['throughput', ['callsPerSec', 'cpuPerCallUs', 'listenerWarnings']],
]) {
  log(`[Streamable HTTP ${scenario}] paired rounds`);
  httpPaired[scenario] = pairedRounds({
    floor: 'http-floor',
    clients: ['http-mcpkit', 'http-sdk-v1'],
    keys,
    rounds: runs(5),
    runOne: (client) => worker(client, scenario, 'http'),
    ours: 'http-mcpkit',
    sdk: 'http-sdk-v1',
    what: `HTTP ${scenario}`,
    log,
  });
}
for (const client of httpClients)
  results.figures.http[client] = {
    latency: httpPaired.latency.figures[client],
    throughput: httpPaired.throughput.figures[client],
  };
log('[import cost]');
const base = importCost('0');
results.figures.importMs = {
  base,
  mcpkit:
    importCost("await import('@mcpkit/client'); await import('@mcpkit/transport-stdio')") - base,
  'sdk-v1':
    importCost(
      "await import('@modelcontextprotocol/sdk/client/index.js'); await import('@modelcontextprotocol/sdk/client/stdio.js')",
    ) - base,
  'sdk-v2':
    importCost(
      "await import('@modelcontextprotocol/client'); await import('@modelcontextprotocol/client/stdio')",
    ) - base,
};

// ---------------------------------------------------------------------------------------
const F = results.figures;
const xf = (v) => (v === undefined ? 'n/a' : `${v.toFixed(2)}×`);
const ratio = (a, b) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const cell = (fig, key) => (fig?.failed ? 'fails' : fmt(fig?.[key]));

const rows = [];
const targets = [];
function row(
  label,
  getFig,
  key,
  { lowerIsBetter = true, floorTarget, sdkTarget, paired, inFlightPaired } = {},
) {
  const v = Object.fromEntries(clients.map((c) => [c, getFig(c)]));
  const ours = v.mcpkit?.[key];
  // Sequential rows give the median of per-pair ratios, not the ratio of the medians, and
  // against floor-detached (spawned as StdioTransport spawns): the plain floor's server
  // shares the client's scheduler autogroup, which alone can triple its latency (#21 item 7).
  // The 64-in-flight rows give the median of per-pair ratios to the plain floor.
  const rf = paired
    ? sequential.vsDetached[key]
    : inFlightPaired
      ? inFlight.vsFloor.mcpkit[key]
      : ratio(ours, v.floor?.[key]);
  const rs = paired
    ? sequential.vsSdkV1[key]
    : inFlightPaired
      ? inFlight.vsSdkV1[key]
      : ratio(ours, v['sdk-v1']?.failed ? undefined : v['sdk-v1']?.[key]);
  rows.push([
    label,
    ...clients.map((c) => cell(v[c], key)),
    rf === undefined ? '' : `${rf.toFixed(2)}×`,
    rs === undefined ? (v['sdk-v1']?.failed ? 'SDK fails' : '') : `${rs.toFixed(2)}×`,
  ]);
  if (floorTarget !== undefined)
    targets.push({
      label,
      what: `${lowerIsBetter ? '≤' : '≥'} ${floorTarget}× ${paired ? 'floor-detached' : 'floor'}`,
      value: rf,
      met: rf !== undefined && (lowerIsBetter ? rf <= floorTarget : rf >= floorTarget),
    });
  if (sdkTarget !== undefined) {
    // For "higher is better" figures the target is a minimum multiple of the SDK's.
    const met = rs !== undefined && (lowerIsBetter ? rs <= sdkTarget : rs >= sdkTarget);
    targets.push({
      label,
      what: `${lowerIsBetter ? '≤' : '≥'} ${sdkTarget}× SDK v1`,
      value: rs,
      met,
    });
  }
}

row('sequential tools/call p50 (µs) †', (c) => F[c].latency, 'p50Us', {
  floorTarget: 1.3,
  paired: true,
});
row('sequential tools/call p99 (µs) †', (c) => F[c].latency, 'p99Us', { paired: true });
row('client CPU per call, sequential (µs) †', (c) => F[c].latency, 'cpuPerCallUs', {
  floorTarget: 1.3,
  paired: true,
});
row('client CPU per call, 64 in flight (µs) ‡', (c) => F[c].throughput, 'cpuPerCallUs', {
  floorTarget: 1.2,
  inFlightPaired: true,
});
row('throughput, 64 in flight (calls/s) ‡', (c) => F[c].throughput, 'callsPerSec', {
  lowerIsBetter: false,
  floorTarget: 0.9,
  sdkTarget: 2,
  inFlightPaired: true,
});
row('connect: spawn to first answer (ms)', (c) => F[c].connect, 'connectMs');
for (const size of [1, 10, 50]) {
  row(`${size} MB result: time (ms)`, (c) => F[c][`big${size}`], 'ms', { floorTarget: 1.5 });
  row(`${size} MB result: peak RSS (MB)`, (c) => F[c][`big${size}`], 'peakRssMb');
}
const importRow = [
  'import client + stdio over `node -e 0` (ms)',
  '0',
  fmt(F.importMs.mcpkit),
  fmt(F.importMs['sdk-v1']),
  fmt(F.importMs['sdk-v2']),
  '',
  `${ratio(F.importMs.mcpkit, F.importMs['sdk-v1']).toFixed(2)}×`,
];
rows.push(importRow);
const importRatio = ratio(F.importMs.mcpkit, F.importMs['sdk-v1']);
targets.push({
  label: 'import cost',
  what: '≤ 0.25× SDK v1',
  value: importRatio,
  met: importRatio <= 0.25,
});

const header = [
  'figure (median of runs)',
  ...clients,
  'mcpkit / floor († floor-detached)',
  'mcpkit / SDK v1',
];
const table = [header, header.map(() => '---'), ...rows]
  .map((r) => `| ${r.join(' | ')} |`)
  .join('\n');
const lifted = F['sdk-v1-lifted'];
const extra = [
  `† ${sequential.rounds} paired rounds (floor, mcpkit, sdk-v1, sdk-v2, floor-detached, floor, …); mcpkit's ratio in the table above is the median of its per-round ratios to floor-detached (the floor spawned detached, as StdioTransport spawns; the plain floor's server shares the client's scheduler autogroup); the sequential table below also gives each client against the mean of the two plain floor runs beside it, as information.`,
  `‡ ${inFlight.rounds} paired rounds (floor, mcpkit, sdk-v1, sdk-v2, floor-detached, floor, …); the ratios are medians of per-round ratios. As information, against floor-detached (${fmt(inFlight.figures['floor-detached'].callsPerSec)} calls/s, ${fmt(inFlight.figures['floor-detached'].cpuPerCallUs)} µs per call: the floor with its server spawned as StdioTransport spawns one, in a session and so a scheduler autogroup of its own): mcpkit's throughput ${xf(inFlight.vsDetached.callsPerSec)}, CPU per call ${xf(inFlight.vsDetached.cpuPerCallUs)}.`,
  `SDK v1 with its 10 MiB read-buffer cap lifted: 10 MB in ${cell(lifted.big10, 'ms')} ms (${fmt(ratio(lifted.big10.ms, F.floor.big10.ms))}× floor), 50 MB in ${cell(lifted.big50, 'ms')} ms (${fmt(ratio(lifted.big50.ms, F.floor.big50.ms))}× floor), peak RSS ${cell(lifted.big50, 'peakRssMb')} MB.`,
  `Against a server built with the SDK (McpServer over stdio): sequential p50 mcpkit ${fmt(F.sdkServer.mcpkit.p50Us)} µs vs SDK v1 ${fmt(F.sdkServer['sdk-v1'].p50Us)} µs; client CPU per call ${fmt(F.sdkServer.mcpkit.cpuPerCallUs)} µs vs ${fmt(F.sdkServer['sdk-v1'].cpuPerCallUs)} µs.`,
  `Memory growth for the result (peak RSS − RSS before the call), mcpkit: ${[1, 10, 50].map((s) => `${s} MB → ${fmt(F.mcpkit[`big${s}`].peakRssMb - F.mcpkit[`big${s}`].rssBeforeMb)} MB`).join(', ')}; floor: ${[1, 10, 50].map((s) => `${s} MB → ${fmt(F.floor[`big${s}`].peakRssMb - F.floor[`big${s}`].rssBeforeMb)} MB`).join(', ')}.`,
];
const targetLines = () =>
  targets.map(
    (t) =>
      `- ${t.met ? 'met' : 'MISSED'}: ${t.label}: ${t.value === undefined ? 'n/a' : t.count ? String(t.value) : `${t.value.toFixed(2)}×`} (target ${t.what})`,
  );
const H = F.http;
const httpRows = [];
function httpRow(label, scenario, key, { floorTarget, sdkTarget, lowerIsBetter = true } = {}) {
  const v = Object.fromEntries(httpClients.map((c) => [c, H[c][scenario]]));
  // Medians of per-round ratios (paired rounds), not ratios of medians.
  const rf = httpPaired[scenario].vsFloor['http-mcpkit'][key];
  const rs = httpPaired[scenario].vsSdkV1[key];
  httpRows.push([
    label,
    ...httpClients.map((c) => cell(v[c], key)),
    rf === undefined ? '' : `${rf.toFixed(2)}×`,
    rs === undefined ? '' : `${rs.toFixed(2)}×`,
  ]);
  if (floorTarget !== undefined)
    targets.push({
      label: `HTTP ${label}`,
      what: `${lowerIsBetter ? '≤' : '≥'} ${floorTarget}× node:http floor`,
      value: rf,
      met: rf !== undefined && (lowerIsBetter ? rf <= floorTarget : rf >= floorTarget),
    });
  if (sdkTarget !== undefined) {
    const met = rs !== undefined && (lowerIsBetter ? rs <= sdkTarget : rs >= sdkTarget);
    targets.push({
      label: `HTTP ${label}`,
      what: `${lowerIsBetter ? '≤' : '≥'} ${sdkTarget}× SDK v1`,
      value: rs,
      met,
    });
  }
}
httpRow('sequential tools/call p50 (µs)', 'latency', 'p50Us');
httpRow('client CPU per call, sequential (µs)', 'latency', 'cpuPerCallUs', { floorTarget: 1.3 });
httpRow('client CPU per call, 64 in flight (µs)', 'throughput', 'cpuPerCallUs', {
  floorTarget: 1.3,
});
httpRow('throughput, 64 in flight (calls/s)', 'throughput', 'callsPerSec', {
  lowerIsBetter: false,
  floorTarget: 0.9,
  sdkTarget: 4,
});
const warnings = (c) =>
  (H[c].latency.listenerWarnings ?? 0) + (H[c].throughput.listenerWarnings ?? 0);
httpRows.push([
  'MaxListenersExceededWarning (median run, both scenarios)',
  ...httpClients.map((c) => String(warnings(c))),
  '',
  '',
]);
targets.push({
  label: 'HTTP listener-leak warnings',
  what: '0 in every run',
  value: warnings('http-mcpkit'),
  met: warnings('http-mcpkit') === 0,
  count: true,
});
const httpHeader = [
  `Streamable HTTP (median of runs; ratios: median of ${runs(5)} paired rounds)`,
  'node:http floor',
  'mcpkit',
  'sdk-v1',
  'mcpkit / floor',
  'mcpkit / SDK v1',
];
const httpTable = [httpHeader, httpHeader.map(() => '---'), ...httpRows]
  .map((r) => `| ${r.join(' | ')} |`)
  .join('\n');
results.httpTable = httpTable;
results.table = table;
results.targets = targets;
// The manager rows (issue #11): connect-all, tool-call overhead, idle memory, lazy start.
const managerBench = runManagerBench({ quick, log });
results.figures.manager = managerBench.figures;
results.managerTable = managerBench.table;
results.managerTargets = managerBench.targets;

const text = `${machineLine()}\n\n${table}\n\n${sequentialTable(sequential)}\n\n${extra.join('\n')}\n\n${httpTable}\n\n${managerBench.table}\n\n${managerBench.lines.join('\n')}\n\nTargets:\n${[...targetLines(), ...managerBench.targets.map(targetLine)].join('\n')}\n`;
mkdirSync(path.dirname(outFile), { recursive: true });
writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(text);
log(`\nwritten: ${path.relative(process.cwd(), outFile)}`);
(await import('./gateway/run.mjs')).writeGatewayRows({ quick, log, outFile }); // #14 item 6
(await import('./cli/run.mjs')).printCliRows({ quick });
(await import('./real-servers/run.mjs')).printRealServerRows({ rounds: quick ? 2 : 5, log }); // finding 17
(await import('./otel/run.mjs')).printRealOtelRows({ quick }); // #26: against real servers
(await import('./otel/run.mjs')).printOtelRows({ quick }); // #26: in-process worst case
(await import('./tool-search/run.mjs')).printToolSearchRows(); // #23 tool search
// #25 scale-out: the Redis store's gateway CPU per forwarded call over the in-memory store
// (replicas in processes of their own), and the bare server call as information.
spawnSync(process.execPath, [path.join(here, 'scaleout/run.mjs'), ...(quick ? ['--quick'] : [])], {
  stdio: ['ignore', 'inherit', 'inherit'],
  cwd: here,
  timeout: 600_000,
});
// #25 the load run: N clients × M calls through HAProxy over 1 and 3 `mcpkit serve --redis`
// replicas, and one replica SIGKILLed halfway (calls/s, p50/p99, errors, CPU per process).
spawnSync(process.execPath, [path.join(here, 'scaleout/load.mjs'), ...(quick ? ['--quick'] : [])], {
  stdio: ['ignore', 'inherit', 'inherit'],
  cwd: here,
  timeout: 900_000,
});

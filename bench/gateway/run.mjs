// The gateway rows of `pnpm bench` (issue #14 item 6): per forwarded tools/call, the latency
// and CPU that `mcpkit serve` adds beside an SDK v1 Client + Server proxy, both measured
// against calling the backend directly, over stdio and over Streamable HTTP; and throughput
// with 64 calls in flight through each. A hand-written forwarder (floor-proxy) shows what any
// Node intermediary costs on the machine. One fresh worker process per transport; inside it
// the setups run interleaved (direct, floor-proxy, sdk-proxy, mcpkit-serve, direct, …, the
// order turning every round) and each ratio is the median of the rounds' own ratios, so the
// machine's load hits all alike; added latency is read on the p50 of all rounds' calls
// (summarize says why).
// Standalone: node bench/gateway/run.mjs [--quick] [--signed-in-only]   (after `pnpm build`)
// The signed-in row (issue #24): over Streamable HTTP, the same mcpkit serve with the static
// token only beside it with JWT access tokens, a policy, a rate limit and the audit file on
// (setups.mjs, `signedInSetupNames`), interleaved the same way in a worker of its own: the
// gateway process's CPU per forwarded call with 64 in flight, as a ratio.
// Instructions (issue #21 item 5): after the timed rows, instructions.mjs counts under
// callgrind what the gateway and the floor forwarder each execute per forwarded call, over
// both transports; the printout gives the ratios beside the added-p50 rows, which the
// machine's wake-ups move by ±0.1–0.5 from run to run and the count does not.
// Profiles: MCPKIT_BENCH_GATEWAY_CPU_PROF=<dir> makes each intermediary write a V8 CPU profile
// to <dir>/<setup>/ (node --cpu-prof) when it exits.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const transports = ['stdio', 'http'];

const median = (values) => {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const fmt = (v) => (v === undefined ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const pct = (r) => (r === undefined ? 'n/a' : `${(r * 100).toFixed(0)} %`);
const times = (r) => (r === undefined ? 'n/a' : `${r.toFixed(2)}×`);

function worker(transport, rounds, sequential, inFlight, warmup, which = 'proxies') {
  const r = spawnSync(
    process.execPath,
    [
      path.join(here, 'worker.mjs'),
      transport,
      String(rounds),
      String(sequential),
      String(inFlight),
      String(warmup),
      which,
    ],
    { encoding: 'utf8', timeout: 600_000, cwd: here, maxBuffer: 64 * 1024 * 1024 },
  );
  const line = r.stdout?.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n');
    return { failed: why.find((l) => /Error|error/.test(l)) ?? why.slice(-1)[0] };
  }
}

const proxies = ['floor-proxy', 'sdk-proxy', 'mcpkit-serve'];
const setups = ['direct', ...proxies];

/**
 * Medians of the per-round figures and of the per-round ratios of one transport's run.
 * Added latency is the exception: a difference of two p50s (through the intermediary, and
 * direct), each of one block of calls. Over HTTP the 2 cores' scheduling moves one block's
 * p50 by tens of µs, as much as the difference itself, so a ratio of two such differences
 * swings from 0.4 to 4.7 round by round (bench/README.md, "Stop 43"). Added latency is
 * therefore read on the p50 of every round's calls together (the setups alternate block by
 * block in turning order, so the machine's load falls on all of them alike): p50 through
 * the intermediary minus p50 direct, and the ratios of those. The median of the per-round
 * ratios is kept beside it as context.
 */
function summarize(rounds) {
  const of = (list, key) =>
    Object.fromEntries(list.map((s) => [s, median(rounds.map((r) => r[s][key]))]));
  const perRound = (fn) => median(rounds.map(fn));
  const added = (r, setup) => r[setup].p50Us - r.direct.p50Us;
  const pooledP50 = (setup) => median(rounds.flatMap((r) => r[setup].timesUs ?? []));
  const pooled = Object.fromEntries(setups.map((s) => [s, pooledP50(s)]));
  const pooledAdded = (setup) => pooled[setup] - pooled.direct;
  const gw = 'mcpkit-serve';
  const sdk = 'sdk-proxy';
  const quartiles = (fn) => {
    const v = rounds.map(fn).sort((a, b) => a - b);
    return [v[Math.floor(v.length / 4)], v[Math.min(v.length - 1, Math.floor((3 * v.length) / 4))]];
  };
  return {
    p50Us: pooled,
    addedP50Us: Object.fromEntries(proxies.map((s) => [s, pooledAdded(s)])),
    callsPerSetup: rounds.reduce((n, r) => n + (r.direct.timesUs?.length ?? 0), 0),
    cpuUsPerCall: of(proxies, 'cpuUsPerCall'),
    cpuUsPerCallInFlight: of(proxies, 'cpuUsPerCallInFlight'),
    perSecond: of(setups, 'perSecond'),
    ratios: ratiosOf(gw),
    /** The same ratios for the hand-written forwarder: where the floor of any Node intermediary sits. */
    floorRatios: ratiosOf('floor-proxy'),
    /** mcpkit serve against the hand-written forwarder (issue #21 item 5). */
    vsFloorProxy: {
      addedLatency: pooledAdded(gw) / pooledAdded('floor-proxy'),
      /** Context: the same ratio round by round (median, middle half). */
      addedLatencyPerRound: perRound((r) => added(r, gw) / added(r, 'floor-proxy')),
      addedLatencyPerRoundMiddle: quartiles((r) => added(r, gw) / added(r, 'floor-proxy')),
      throughput: perRound((r) => r[gw].perSecond / r['floor-proxy'].perSecond),
    },
  };

  function ratiosOf(setup) {
    return {
      addedLatency: pooledAdded(setup) / pooledAdded(sdk),
      cpu: perRound((r) => r[setup].cpuUsPerCall / r[sdk].cpuUsPerCall),
      cpuInFlight: perRound((r) => r[setup].cpuUsPerCallInFlight / r[sdk].cpuUsPerCallInFlight),
      throughput: perRound((r) => r[setup].perSecond / r[sdk].perSecond),
    };
  }
}

/** The signed-in row's medians: per setup, and the per-round ratios signed-in / static. */
function summarizeSignedIn(rounds) {
  const [plain, signed] = ['mcpkit-serve', 'mcpkit-serve-signed-in'];
  const of = (key) => ({
    [plain]: median(rounds.map((r) => r[plain][key])),
    [signed]: median(rounds.map((r) => r[signed][key])),
    ratio: median(rounds.map((r) => r[signed][key] / r[plain][key])),
  });
  return {
    cpuUsPerCallInFlight: of('cpuUsPerCallInFlight'),
    perSecond: of('perSecond'),
    cpuUsPerCall: of('cpuUsPerCall'),
    p50Us: of('p50Us'),
    perRoundCpuRatios: rounds.map(
      (r) => r[signed].cpuUsPerCallInFlight / r[plain].cpuUsPerCallInFlight,
    ),
  };
}

/**
 * Instructions per forwarded call (instructions.mjs: callgrind, user space, sequential), the
 * gateway's against the floor forwarder's over each transport: what each executes, which the
 * machine's load does not move, beside the timed added-p50 rows, which it does. Returns the
 * figures (or why there are none) and one line for the printout.
 */
function countInstructions() {
  // Fewer calls than these leave TurboFan compiling the gateway's path inside the segments
  // (2000 warm-up calls and segments of 500/1500 read 1.08× and 1.30× for stdio in one run).
  const counts = ['4000', '1000', '4000'];
  const r = spawnSync(
    process.execPath,
    [path.join(here, 'instructions.mjs'), 'stdio,http', 'floor-proxy,mcpkit-serve', ...counts],
    { encoding: 'utf8', timeout: 900_000, cwd: here, maxBuffer: 16 * 1024 * 1024 },
  );
  let figures;
  try {
    figures = JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').pop();
    return {
      figures: { failed: why },
      line: `Instructions per forwarded call: not counted (${why}).`,
    };
  }
  const k = (n) => `${(n / 1000).toFixed(1)}k`;
  const parts = Object.entries(figures).map(([transport, f]) => {
    const [ours, floor] = [f['mcpkit-serve'], f['floor-proxy']];
    const ratios = ours.map((v, i) => times(v / floor[i]));
    return `${transport} ${ours.map(k).join(' / ')} against the floor forwarder's ${floor.map(k).join(' / ')} = ${ratios.join(' / ')}`;
  });
  return {
    figures,
    line: `Instructions per forwarded call (callgrind, user space, sequential; ${counts[0]} warm-up calls, then two pairs of ${counts[1]}- and ${counts[2]}-call segments): ${parts.join('; ')}.`,
  };
}

/** Signed-in over static token: CPU per call with 64 in flight at most this many times. */
const SIGNED_IN_CPU_LIMIT = 1.15;

/** Runs the gateway rows; returns the figures, a markdown table, notes and target verdicts. */
export function runGatewayBench({
  quick = false,
  log = (s) => process.stderr.write(`${s}\n`),
  signedInOnly = false,
} = {}) {
  const measured = signedInOnly ? [] : transports;
  // Many short rounds pair the setups closely: the load of a shared machine changes by the
  // second, and each round's ratio compares blocks run within about a second of each other.
  const rounds = { stdio: quick ? 5 : 15, http: quick ? 4 : 12 };
  // HTTP calls cost about ten times stdio ones here: fewer per block keeps a run short.
  // The HTTP in-flight block is timed, 250 ms per setup (2,500–5,000 calls for the gateway
  // and the floor forwarder): a block of 600 calls lasted about 40 ms, a few of the
  // scheduler's time slices, and its per-round ratios spread from 0.20 to 0.69.
  // Warm-up: enough calls that every setup's hot path is compiled before the rounds start
  // (see worker.mjs); HTTP calls cost more, and fewer suffice.
  const size = {
    stdio: { sequential: 300, inFlight: 1500, warmup: 10_000 },
    http: { sequential: 300, inFlight: '250ms', warmup: 3000 },
  };
  const figures = {};
  const blocks = [];
  let instructionLine;
  for (const transport of measured) {
    const { sequential, inFlight, warmup } = size[transport];
    blocks.push(
      `${transport}: ${warmup} warm-up calls sequential and ${2 * warmup} in flight per setup, then ${rounds[transport]} rounds of ${sequential} sequential calls, then ${typeof inFlight === 'string' ? `${inFlight} of calls` : `${inFlight} calls`} with 64 in flight`,
    );
    log(
      `[gateway] ${transport}: ${rounds[transport]} interleaved rounds (direct, floor-proxy, sdk-proxy, mcpkit-serve)`,
    );
    const run = worker(transport, rounds[transport], sequential, inFlight, warmup);
    figures[transport] = run.failed ? { failed: run.failed } : summarize(run.rounds);
    if (run.failed) log(`[gateway] ${transport} failed: ${run.failed}`);
  }
  if (measured.length > 0 && quick) {
    instructionLine =
      'Instructions per forwarded call: not counted with --quick (about 4 minutes).';
  } else if (measured.length > 0) {
    log('[gateway] instructions per forwarded call under callgrind (floor-proxy, mcpkit-serve)');
    const counted = countInstructions();
    figures.instructions = counted.figures;
    instructionLine = counted.line;
  }
  // Longer in-flight blocks than the proxy rows': this row's figure is CPU with 64 in flight.
  // Timed, 500 ms per setup: a block of 2000 calls lasted about 30 ms on an idle machine and
  // its per-round ratios spread from 0.74 to 1.82 (runs' medians 1.07–1.21×).
  const signedInRounds = quick ? 5 : 15;
  const signedInSize = { sequential: 150, inFlight: '500ms', warmup: 3000 };
  blocks.push(
    `signed-in: ${signedInSize.warmup} warm-up calls sequential and ${2 * signedInSize.warmup} in flight per setup, then ${signedInRounds} rounds of ${signedInSize.sequential} sequential calls, then ${signedInSize.inFlight} of calls with 64 in flight`,
  );
  log(`[gateway] signed-in: ${signedInRounds} interleaved rounds (static token, signed in)`);
  const signedRun = worker(
    'http',
    signedInRounds,
    signedInSize.sequential,
    signedInSize.inFlight,
    signedInSize.warmup,
    'signed-in',
  );
  if (signedRun.failed) log(`[gateway] signed-in failed: ${signedRun.failed}`);
  figures.signedIn = signedRun.failed
    ? { failed: signedRun.failed }
    : summarizeSignedIn(signedRun.rounds);
  const header = [
    "forwarded tools/call (p50: of every round's calls; others: median of rounds)",
    'direct',
    'floor-proxy',
    'sdk-proxy',
    'mcpkit-serve',
    'mcpkit-serve / sdk-proxy (added p50: of all calls; others: median of per-round ratios)',
    'floor-proxy / sdk-proxy (the floor, same statistic)',
  ];
  const rows = [];
  const targets = [];
  for (const transport of measured) {
    const f = figures[transport];
    const name = transport === 'http' ? 'Streamable HTTP' : 'stdio';
    if (f.failed) {
      rows.push([`${name}: fails (${f.failed})`, '', '', '', '', '', '']);
      continue;
    }
    const cells = (fig, list = proxies) => [
      list === setups ? fmt(fig.direct) : '',
      ...proxies.map((s) => fmt(fig[s])),
    ];
    const fl = f.floorRatios;
    rows.push(
      [`${name}: p50 (µs)`, ...cells(f.p50Us, setups), '', ''],
      [
        `${name}: added p50 over direct (µs)`,
        ...cells(f.addedP50Us),
        pct(f.ratios.addedLatency),
        pct(fl.addedLatency),
      ],
      [
        `${name}: intermediary CPU per call, sequential (µs)`,
        ...cells(f.cpuUsPerCall),
        pct(f.ratios.cpu),
        pct(fl.cpu),
      ],
      [
        `${name}: intermediary CPU per call, 64 in flight (µs)`,
        ...cells(f.cpuUsPerCallInFlight),
        pct(f.ratios.cpuInFlight),
        pct(fl.cpuInFlight),
      ],
      [
        `${name}: throughput, 64 in flight (calls/s)`,
        ...cells(f.perSecond, setups),
        times(f.ratios.throughput),
        times(fl.throughput),
      ],
    );
    // Issue #21 item 5: against the hand-written forwarder (the old "≤ 50 % of the SDK
    // proxy's" is withdrawn: the forwarder itself adds 47–51 % of it).
    const v = f.vsFloorProxy;
    const latencyLimit = transport === 'http' ? 1.3 : 1.15;
    const throughputLimit = transport === 'http' ? 0.9 : 0.95;
    targets.push(
      {
        label: `gateway ${name}: added p50 latency`,
        value: times(v.addedLatency),
        floor: `${fmt(f.addedP50Us['floor-proxy'])} µs added, ${fmt(f.addedP50Us['mcpkit-serve'])} µs ours (p50 of ${f.callsPerSetup} calls each; per round: median ${times(v.addedLatencyPerRound)}, middle half ${v.addedLatencyPerRoundMiddle.map(times).join('–')})`,
        target: `≤ ${latencyLimit}× the floor forwarder's`,
        met: v.addedLatency <= latencyLimit,
      },
      {
        label: `gateway ${name}: throughput, 64 in flight`,
        value: times(v.throughput),
        floor: `${fmt(f.perSecond['floor-proxy'])} calls/s, ${fmt(f.perSecond['mcpkit-serve'])} ours`,
        target: `≥ ${throughputLimit}× the floor forwarder's`,
        met: v.throughput >= throughputLimit,
      },
    );
  }
  const table = [header, header.map(() => '---'), ...rows]
    .map((r) => `| ${r.join(' | ')} |`)
    .join('\n');
  const signedInTable = signedInRows(figures.signedIn);
  const si = figures.signedIn;
  targets.push({
    label:
      'gateway Streamable HTTP, signed in (JWT + policy + rate limit + audit file): CPU per forwarded call, 64 in flight',
    value: si.failed ? 'fails' : times(si.cpuUsPerCallInFlight.ratio),
    floor: si.failed
      ? si.failed
      : `${fmt(si.cpuUsPerCallInFlight['mcpkit-serve'])} µs with the static token, ${fmt(si.cpuUsPerCallInFlight['mcpkit-serve-signed-in'])} µs signed in`,
    target: `≤ ${SIGNED_IN_CPU_LIMIT}× the same gateway with the static token only`,
    met: !si.failed && si.cpuUsPerCallInFlight.ratio <= SIGNED_IN_CPU_LIMIT,
    base: 'static token',
  });
  const lines = [
    ...(instructionLine ? [instructionLine] : []),
    ...(figures.signedIn.perRoundCpuRatios
      ? [
          `Signed in / static token, CPU per call with 64 in flight, per round: ${figures.signedIn.perRoundCpuRatios.map(times).join(', ')}.`,
        ]
      : []),
    `Gateway rows, per setup: ${blocks.join('; ')}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}.`,
  ];
  return {
    figures,
    table: measured.length > 0 ? `${table}\n\n${signedInTable}` : signedInTable,
    lines,
    targets,
  };
}

/** The signed-in row's table: medians per setup and of the per-round ratios. */
function signedInRows(f) {
  const header = [
    'Streamable HTTP through mcpkit serve (median of rounds)',
    'static token only',
    'signed in: JWT, policy, rate limit, audit file',
    'signed in / static token (median of per-round ratios)',
  ];
  const rows = f.failed
    ? [[`fails (${f.failed})`, '', '', '']]
    : [
        ['gateway CPU per call, 64 in flight (µs)', f.cpuUsPerCallInFlight],
        ['throughput, 64 in flight (calls/s)', f.perSecond],
        ['gateway CPU per call, sequential (µs)', f.cpuUsPerCall],
        ['p50, sequential (µs)', f.p50Us],
      ].map(([label, v]) => [
        label,
        fmt(v['mcpkit-serve']),
        fmt(v['mcpkit-serve-signed-in']),
        times(v.ratio),
      ]);
  return [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

export const gatewayTargetLine = (t) =>
  `- ${t.met ? 'met' : 'MISSED'}: ${t.label}: ${t.value} (target ${t.target}; ${t.base === undefined ? 'the hand-written floor-proxy' : 'measured'}: ${t.floor})`;

/**
 * `pnpm bench`'s one-line hook: runs the rows, prints them, and adds them to the results
 * file `bench/run.mjs` wrote (when given).
 */
export function writeGatewayRows({ quick = false, log, outFile, signedInOnly = false } = {}) {
  const bench = runGatewayBench({ quick, log, signedInOnly });
  process.stdout.write(
    `\n${bench.table}\n\n${bench.lines.join('\n')}\n\nGateway targets:\n${bench.targets.map(gatewayTargetLine).join('\n')}\n`,
  );
  if (outFile) {
    const results = JSON.parse(readFileSync(outFile, 'utf8'));
    results.figures.gateway = bench.figures;
    results.gatewayTable = bench.table;
    results.gatewayTargets = bench.targets;
    writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  }
  return bench;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeGatewayRows({
    quick: process.argv.includes('--quick'),
    signedInOnly: process.argv.includes('--signed-in-only'),
  });
}

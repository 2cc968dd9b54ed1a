// The manager rows of `pnpm bench` (issue #11): connect-all of 20 stdio servers at
// concurrency 3 beside the raw floor and SDK v1 under p-map, the CPU cost of a tool call
// through the manager's host tool, the memory of an idle connection, and tools() with a
// warm lazy-start cache. Every run is a fresh worker process; connect-all runs are
// interleaved (floor, SDK v1, manager, floor, …) so the machine's load hits all alike.
// Standalone: node bench/manager/run.mjs [--quick]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const connectImpls = ['floor', 'sdk-v1', 'manager'];
const SERVERS = 20;
const CONCURRENCY = 3;

function worker(script, ...args) {
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(here, script), ...args], {
    encoding: 'utf8',
    timeout: 300_000,
    cwd: here,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = r.stdout?.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n');
    return { failed: why.find((l) => /Error|error/.test(l)) ?? why.slice(-1)[0] };
  }
}

const median = (values) => {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};

function medians(results) {
  const ok = results.filter((r) => !r.failed);
  if (ok.length === 0) return { failed: results[0]?.failed ?? 'no run' };
  const keys = new Set(ok.flatMap((r) => Object.keys(r)));
  return Object.fromEntries([...keys].map((k) => [k, median(ok.map((r) => r[k]))]));
}

/** Whether @mcpkit/manager is built and importable from the bench workspace. */
function managerAvailable() {
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "await import('@mcpkit/manager')"],
    { cwd: here, encoding: 'utf8' },
  );
  return r.status === 0;
}

const fmt = (v, digits = 1) =>
  v === undefined ? 'n/a' : v >= 100 ? v.toFixed(0) : v.toFixed(digits);
const ratio = (a, b) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const times = (r) => (r === undefined ? '' : `${r.toFixed(2)}×`);
const cell = (fig, key) => (fig?.failed ? 'fails' : fmt(fig?.[key]));

export function runManagerBench({
  quick = false,
  log = (s) => process.stderr.write(`${s}\n`),
} = {}) {
  const rounds = quick ? 2 : 5;
  const haveManager = managerAvailable();
  if (!haveManager) log('[manager] @mcpkit/manager is not built: its rows are skipped');
  const impls = haveManager ? connectImpls : connectImpls.filter((c) => c !== 'manager');

  const connect = Object.fromEntries(impls.map((c) => [c, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const impl of impls) {
      log(
        `[manager] connect-all ${SERVERS} stdio at ${CONCURRENCY}: ${impl}, round ${round}/${rounds}`,
      );
      connect[impl].push(worker('connect-worker.mjs', impl, String(SERVERS), String(CONCURRENCY)));
    }
  }
  const figures = { connectAll: Object.fromEntries(impls.map((c) => [c, medians(connect[c])])) };
  // Each connect run is also judged against the floor of its own round: the steadier ratio.
  figures.connectAll.roundRatios = Object.fromEntries(
    impls
      .filter((c) => c !== 'floor')
      .map((c) => [c, median(connect[c].map((r, i) => ratio(r.ms, connect.floor[i]?.ms)))]),
  );

  if (haveManager) {
    log('[manager] tool call CPU: HostTool.call vs McpClient.callTool');
    figures.toolCall = medians(
      Array.from({ length: quick ? 2 : 3 }, () => worker('tool-call-worker.mjs')),
    );
    log('[manager] memory of an idle connection');
    figures.idleMemory = Object.fromEntries(
      ['manager', 'mcpkit', 'sdk-v1'].map((impl) => [
        impl,
        medians(
          Array.from({ length: quick ? 2 : 3 }, () =>
            worker('idle-memory-worker.mjs', impl, String(SERVERS)),
          ),
        ),
      ]),
    );
    log('[manager] tools() with a warm lazy-start cache');
    figures.lazyTools = medians(
      Array.from({ length: quick ? 2 : 3 }, () => worker('lazy-tools-worker.mjs', String(SERVERS))),
    );
  }
  return { figures, ...report(figures, impls) };
}

function report(figures, impls) {
  const c = figures.connectAll;
  const targets = [];
  const header = [
    `connect-all, ${SERVERS} stdio servers at concurrency ${CONCURRENCY} (median of runs)`,
    ...impls,
    ...impls.filter((i) => i !== 'floor').map((i) => `${i} / floor`),
  ];
  const row = (label, key) => [
    label,
    ...impls.map((i) => cell(c[i], key)),
    ...impls.filter((i) => i !== 'floor').map((i) => times(ratio(c[i]?.[key], c.floor?.[key]))),
  ];
  const rows = [
    row('wall time to all connected (ms)', 'ms'),
    row('client CPU (ms)', 'cpuMs'),
    [
      'median of per-round ratios (wall time)',
      ...impls.map(() => ''),
      ...impls.filter((i) => i !== 'floor').map((i) => times(c.roundRatios[i])),
    ],
  ];
  const table = [header, header.map(() => '---'), ...rows]
    .map((r) => `| ${r.join(' | ')} |`)
    .join('\n');
  const managerRatio = ratio(c.manager?.ms, c.floor?.ms);
  targets.push({
    label: 'manager connect-all 20 stdio',
    what: '≤ 1.3× floor',
    value: managerRatio,
    met: managerRatio !== undefined && managerRatio <= 1.3,
  });
  const vsSdk = ratio(c['sdk-v1']?.ms, c.manager?.ms);
  targets.push({
    label: 'manager connect-all vs SDK v1 under p-map',
    what: '≥ 2× faster',
    value: vsSdk,
    met: vsSdk !== undefined && vsSdk >= 2,
  });

  const lines = [];
  const t = figures.toolCall;
  if (t && !t.failed) {
    lines.push(
      `Tool call CPU per call (same connection, client process), direct McpClient.callTool / the same with a progress token / HostTool.call: sequential ${fmt(t.directSeqUs)} / ${fmt(t.progressSeqUs)} / ${fmt(t.hostSeqUs)} µs (host ${times(t.seqRatio)} direct, ${times(t.seqVsProgressRatio)} direct with progress token); ${t.inFlight} in flight ${fmt(t.directParUs)} / ${fmt(t.progressParUs)} / ${fmt(t.hostParUs)} µs (${times(t.parRatio)}, ${times(t.parVsProgressRatio)}).`,
    );
    targets.push({
      label: 'HostTool.call CPU per call, sequential',
      what: '≤ 1.1× McpClient.callTool',
      value: t.seqRatio,
      met: t.seqRatio <= 1.1,
    });
    targets.push({
      label: `HostTool.call CPU per call, ${t.inFlight} in flight`,
      what: '≤ 1.1× McpClient.callTool',
      value: t.parRatio,
      met: t.parRatio <= 1.1,
    });
  } else if (t?.failed) lines.push(`Tool call CPU: fails (${t.failed})`);
  const m = figures.idleMemory;
  if (m) {
    const one = (label, f) =>
      f.failed ? `${label} fails (${f.failed})` : `${label} ${fmt(f.heapKb)} KB`;
    lines.push(
      `Memory of an idle connection (client process, V8 heap + external after GC, per connection over ${SERVERS}, tools listed once): ${one('manager', m.manager)}; ${one('bare McpClient', m.mcpkit)}; ${one('SDK v1', m['sdk-v1'])}.`,
    );
    if (!m.manager?.failed)
      targets.push({
        label: 'idle connection in the manager',
        what: '≤ 40 KB',
        value: m.manager.heapKb,
        met: m.manager.heapKb <= 40,
        unit: 'KB',
      });
  }
  const l = figures.lazyTools;
  if (l && !l.failed) {
    lines.push(
      `Lazy start, warm cache, ${SERVERS} stdio servers: connectAll() ${fmt(l.connectMs, 2)} ms, then tools() ${fmt(l.toolsMs, 2)} ms returning ${l.tools} tools, ${l.spawned} processes spawned; the first call then started ${l.spawnedByCall} server (cold, filling the cache: connectAll() + tools() ${fmt(l.coldMs)} ms, ${l.coldSpawned} spawned).`,
    );
    targets.push({
      label: 'tools() with a warm lazy-start cache',
      what: '≤ 50 ms',
      value: l.toolsMs,
      met: l.toolsMs <= 50,
      unit: 'ms',
    });
    targets.push({
      label: 'processes spawned by tools() with a warm cache',
      what: '0',
      value: l.spawned,
      met: l.spawned === 0,
      unit: 'count',
    });
  } else if (l?.failed) lines.push(`Lazy start: fails (${l.failed})`);
  return { table, lines, targets };
}

export function targetLine(t) {
  const value =
    t.value === undefined
      ? 'n/a'
      : t.unit === 'count'
        ? String(t.value)
        : t.unit === 'ms'
          ? `${t.value.toFixed(2)} ms`
          : t.unit === 'KB'
            ? `${t.value.toFixed(1)} KB`
            : `${t.value.toFixed(2)}×`;
  return `- ${t.met ? 'met' : 'MISSED'}: ${t.label}: ${value} (target ${t.what})`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { table, lines, targets } = runManagerBench({ quick: process.argv.includes('--quick') });
  process.stdout.write(
    `${table}\n\n${lines.join('\n')}\n\nTargets:\n${targets.map(targetLine).join('\n')}\n`,
  );
}

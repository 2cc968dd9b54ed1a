// The OpenTelemetry rows of `pnpm bench` (issue #26): CPU per call of McpClient (and the
// McpServer it calls, in one process) with no hook, with the @mcpkit/otel hooks and only
// @opentelemetry/api (no SDK), and with the SDK and a batching span processor. Runs are
// fresh processes, interleaved (none, api, sdk-batch, none, …); ratios of medians.
// Standalone: node bench/otel/run.mjs [--quick]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const MODES = ['none', 'off', 'api', 'sdk-batch'];

function worker(mode, calls) {
  const r = spawnSync(process.execPath, [path.join(here, 'call-worker.mjs'), mode, String(calls)], {
    encoding: 'utf8',
    timeout: 300_000,
    cwd: here,
  });
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    return { failed: (r.stderr || `exit ${r.status}`).trim().split('\n').slice(-1)[0] };
  }
}

const median = (v) => {
  const s = v.filter(Number.isFinite).sort((x, y) => x - y);
  if (s.length === 0) return undefined;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export function printOtelRows({ quick = false } = {}) {
  const rounds = quick ? 3 : 7;
  const calls = quick ? 5000 : 20000;
  const runs = Object.fromEntries(MODES.map((m) => [m, []]));
  for (let i = 0; i < rounds; i++)
    for (const mode of MODES) {
      const r = worker(mode, calls);
      if (r.failed) {
        process.stdout.write(`OpenTelemetry row ${mode} failed: ${r.failed}\n`);
        return undefined;
      }
      runs[mode].push(r.cpuPerCallUs);
    }
  const cpu = Object.fromEntries(MODES.map((m) => [m, median(runs[m])]));
  const ratio = (m) => cpu[m] / cpu.none;
  // Fresh processes differ by ±20% on a loaded machine; the paired run (both sides in one
  // process, alternating blocks) is what the API-only target is read from.
  const paired = worker('paired-api', quick ? 10000 : 40000);
  if (paired.failed) {
    process.stdout.write(`OpenTelemetry row paired-api failed: ${paired.failed}\n`);
    return undefined;
  }
  const targets = [
    {
      label: 'hooks off (@mcpkit/otel loaded, no hook given) vs no hook',
      value: ratio('off'),
      max: 1.02,
    },
    {
      label: `hooks on, @opentelemetry/api without an SDK vs no hook, paired in one process (${paired.calls} calls each; per-round ratios, middle half: ${paired.spread.map((x) => x.toFixed(3)).join('–')})`,
      value: paired.ratio,
      max: 1.02,
    },
    {
      label: 'hooks on, SDK with a batching processor vs no hook',
      value: ratio('sdk-batch'),
      max: 1.3,
    },
  ];
  const lines = [
    '',
    `OpenTelemetry (#26): CPU per sequential tools/call, McpClient + in-process McpServer, median of ${rounds} runs of ${calls} calls`,
    '| hooks | CPU per call (µs) | vs no hook |',
    '| --- | --- | --- |',
    ...MODES.map((m) => `| ${m} | ${cpu[m].toFixed(1)} | ${ratio(m).toFixed(3)}× |`),
    `| api, paired with none in one process | ${paired.cpuPerCallUs.toFixed(1)} vs ${paired.baseUs.toFixed(1)} | ${paired.ratio.toFixed(3)}× |`,
    'Targets:',
    ...targets.map(
      (t) =>
        `- ${t.value <= t.max ? 'met' : 'MISSED'}: ${t.label}: ${t.value.toFixed(3)}× (target ≤ ${t.max}×)`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return { cpu, paired, targets };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  printOtelRows({ quick: process.argv.includes('--quick') });

// Captures a real trace: `mcpkit call` (the host) → `mcpkit serve --http` (the gateway) →
// a stdio backend on @mcpkit/server, the three processes exporting OTLP/HTTP to the
// receiver of tests/otel, and prints the trace of the host's `tools/call` span as a tree.
//   pnpm run build && node tests/otel/trace-capture.mjs [--all]
// The example trace of packages/otel/README.md is this script's output;
// tests/otel/trace-capture.test.ts checks that the page still shows what a run gives.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startOtlpReceiver } from './otlp-receiver.mjs';

/** @typedef {import('./otlp-receiver.mjs').ReceivedSpan} ReceivedSpan */

const cliBin = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));
const backend = fileURLToPath(new URL('./fixtures/traced-stdio-backend.mjs', import.meta.url));
const TOKEN = 'trace-capture-token-0123456789abcdef';
const WAIT_MS = 60_000;
const KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
/** Printed after a span's kind and service, in this order, when the span has them. */
const SHOWN = [
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.operation.name',
  'mcpkit.server.name',
  'network.transport',
  'network.protocol.name',
  'network.protocol.version',
  'server.address',
  'server.port',
  'client.address',
  'mcp.protocol.version',
  'jsonrpc.request.id',
  'error.type',
  'mcpkit.connection.attempt',
  'mcpkit.connection.state',
];

/**
 * Runs `node <args>` and resolves with its exit (code or signal) and output; bounded.
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 */
function run(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args.slice(1, 4).join(' ')} ran past ${WAIT_MS} ms:\n${stderr}`));
    }, WAIT_MS);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A private HOME and data folder, so no config or token store of the machine is read. */
function home() {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-trace-capture-'));
  return {
    env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: path.join(dir, 'data') },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Starts the gateway, runs one `mcpkit call` through it, stops the gateway with `signal`
 * and returns what the receiver decoded. The gateway's batch processor is told to wait
 * 10 minutes (OTEL_BSP_SCHEDULE_DELAY), so its spans arrive only if the signal flushes them.
 * @param {{ signal?: 'SIGTERM' | 'SIGINT' }} [options]
 */
export async function captureTrace({ signal = 'SIGTERM' } = {}) {
  const receiver = await startOtlpReceiver();
  const gatewayHome = home();
  const hostHome = home();
  /** @type {import('node:child_process').ChildProcessWithoutNullStreams | undefined} */
  let gateway;
  try {
    const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
    const backends = {
      local: {
        command: process.execPath,
        args: [backend],
        env: { ...otlp, OTEL_SERVICE_NAME: 'backend' },
      },
    };
    gateway = spawn(
      process.execPath,
      [cliBin, 'serve', '-c', JSON.stringify({ mcpServers: backends }), '--strict-config'].concat([
        '--http',
        '127.0.0.1:0',
      ]),
      {
        env: {
          ...gatewayHome.env,
          ...otlp,
          OTEL_SERVICE_NAME: 'gateway',
          OTEL_BSP_SCHEDULE_DELAY: '600000',
          MCPKIT_SERVE_TOKEN: TOKEN,
        },
      },
    );
    const child = gateway;
    let gatewayErr = '';
    const gatewayExit = new Promise((resolve) =>
      child.once('exit', (code, sig) => resolve({ code, signal: sig })),
    );
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "listening on" line:\n${gatewayErr}`)),
        WAIT_MS,
      );
      child.stderr.on('data', (c) => {
        gatewayErr += c;
        const m = /listening on (\S+)/.exec(gatewayErr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mcpkit serve exited (${code}) before listening:\n${gatewayErr}`));
      });
    });
    const hostConfig = {
      mcpServers: { gw: { type: 'http', url, headers: { Authorization: `Bearer ${TOKEN}` } } },
    };
    const call = await run(
      [
        cliBin,
        '--strict-config',
        '-c',
        JSON.stringify(hostConfig),
        'call',
        'gw',
        'local__echo',
      ].concat([JSON.stringify({ text: 'hello' })]),
      { ...hostHome.env, ...otlp, OTEL_SERVICE_NAME: 'host' },
    );
    if (call.code !== 0) throw new Error(`mcpkit call exited ${call.code}:\n${call.stderr}`);
    const gatewaySpansBeforeSignal = receiver.spans.filter((s) => s.service === 'gateway').length;
    const metricPostsBeforeSignal = receiver.metricPosts.length;
    child.kill(signal);
    const exit = await Promise.race([
      gatewayExit,
      new Promise((_, reject) =>
        setTimeout(
          () => reject(new Error(`mcpkit serve outlived ${signal}:\n${gatewayErr}`)),
          WAIT_MS,
        ).unref(),
      ),
    ]);
    /** @type {any[]} */
    const metricPosts = receiver.metricPosts;
    // Every process has exited, so every export it made has been answered: the receiver
    // holds all there is.
    const host = receiver.spans.find(
      (s) => s.service === 'host' && s.name === 'tools/call local__echo',
    );
    if (!host)
      throw new Error('the receiver got no "tools/call local__echo" span from mcpkit call');
    return {
      traceId: host.traceId,
      spans: receiver.spans.filter((s) => s.traceId === host.traceId),
      received: [...receiver.spans],
      output: call.stdout,
      gatewaySpansBeforeSignal,
      /** The `service.name` of each metrics export received after the signal. */
      metricServices: metricPosts
        .slice(metricPostsBeforeSignal)
        .flatMap((body) =>
          (body.resourceMetrics ?? []).map(
            (/** @type {any} */ rm) =>
              rm.resource?.attributes?.find((/** @type {any} */ a) => a.key === 'service.name')
                ?.value?.stringValue,
          ),
        ),
      gatewayUrl: url,
      gatewayExit: exit,
      gatewayStderr: gatewayErr,
    };
  } finally {
    if (gateway && gateway.exitCode === null && gateway.signalCode === null)
      gateway.kill('SIGKILL');
    await receiver.close();
    gatewayHome.remove();
    hostHome.remove();
  }
}

/**
 * The spans of one trace as a tree: children under their parent, by start time.
 * @param {ReceivedSpan[]} spans
 * @returns {string}
 */
export function renderTrace(spans) {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) =>
    a.startTimeUnixNano < b.startTimeUnixNano
      ? -1
      : a.startTimeUnixNano > b.startTimeUnixNano
        ? 1
        : 0,
  );
  const children = (/** @type {string} */ parent) =>
    byStart.filter((s) => (ids.has(s.parentSpanId) ? s.parentSpanId : '') === parent);
  const traceIds = [...new Set(spans.map((s) => s.traceId))];
  const lines = [`trace ${traceIds.join(', ')}`];
  const walk = (
    /** @type {ReceivedSpan} */ span,
    /** @type {string} */ lead,
    /** @type {boolean} */ last,
  ) => {
    const ms = Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6;
    const attrs = SHOWN.filter((k) => span.attributes[k] !== undefined).map(
      (k) => `${k}=${span.attributes[k]}`,
    );
    const parent = span.parentSpanId ? ` parent=${span.parentSpanId}` : '';
    const links =
      span.links.length > 0 ? ` links=${span.links.map((l) => l.spanId).join(',')}` : '';
    lines.push(
      `${lead}${last ? '└─' : '├─'} ${span.name}  ${KINDS[span.kind] ?? span.kind}  [${span.service}]  ${ms.toFixed(1)} ms`,
    );
    const more = `${lead}${last ? '   ' : '│  '}`;
    lines.push(
      `${more}${children(span.spanId).length > 0 ? '│' : ' '}    span=${span.spanId}${parent}${links}`,
    );
    if (attrs.length > 0)
      lines.push(`${more}${children(span.spanId).length > 0 ? '│' : ' '}    ${attrs.join(' ')}`);
    const kids = children(span.spanId);
    for (const [i, k] of kids.entries()) walk(k, more, i === kids.length - 1);
  };
  const roots = children('');
  for (const [i, r] of roots.entries()) walk(r, '', i === roots.length - 1);
  return lines.join('\n');
}

/**
 * What a rendered trace says apart from ids, times and ports: one entry per span, its
 * depth in the tree, name, kind and service.
 * @param {string} text
 * @returns {Array<{ depth: number, name: string, kind: string, service: string }>}
 */
export function traceShape(text) {
  const shape = [];
  for (const line of text.split('\n')) {
    const m = /^([ │]*)[├└]─ (.+?) {2}([A-Z]+) {2}\[([^\]]+)\]/.exec(line);
    if (m) shape.push({ depth: m[1].length / 3, name: m[2], kind: m[3], service: m[4] });
  }
  return shape;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const captured = await captureTrace();
  process.stdout.write(`${renderTrace(captured.spans)}\n`);
  // --all: every other trace of the run too (handshakes, lists, connection attempts).
  if (process.argv.includes('--all'))
    for (const id of new Set(captured.received.map((s) => s.traceId)))
      if (id !== captured.traceId)
        process.stdout.write(
          `\n${renderTrace(captured.received.filter((s) => s.traceId === id))}\n`,
        );
}

// One run of the OpenTelemetry rows against a real server in its own process: CPU of
// this (the client's) process per sequential tools/call of McpClient.
//   node real-worker.mjs <mode> <transport> <calls>
//   mode       none  no hook (instrumentation: false), no OpenTelemetry module loaded
//              api   the @mcpkit/otel hooks, @opentelemetry/api loaded, no SDK registered
//              sdk   the hooks with the SDK: AsyncLocalStorage context manager, W3C
//                    propagator, BasicTracerProvider + BatchSpanProcessor with an exporter
//                    that drops what it is given (what an OTLP exporter costs on the wire
//                    is the exporter's, not ours)
//              sdk-metrics  as sdk, with a MeterProvider as well (as the CLI registers):
//                    the hooks also record mcp.client.operation.duration per call
//              sdk-no-cm  as sdk, without the AsyncLocalStorage context manager (a host
//                    whose MCP spans need no parent carried across awaits)
//              sdk-unsampled  as sdk, with a sampler that records nothing (AlwaysOffSampler)
//              hooks-only  the hooks with a tracer whose spans record but keep nothing
//                    (null-tracer.mjs) and the AsyncLocalStorage context manager: the
//                    hooks' cost in a real call without the SDK's spans and processor
//              sdk-no-hook  the SDK registered as for sdk, no hook (instrumentation: false):
//                    what registering the SDK costs this process's calls by itself
//              sdk-spans-only  the SDK registered as for sdk, no hook; the loop itself
//                    starts and ends one CLIENT span per call with the attributes our
//                    hooks set (the same count and kinds): the SDK's own cost of one span
//                    per call, with no code of ours around it
//              paired-spans-only  as paired-sdk, the second client with no hook but each
//                    call inside a span the loop makes (as sdk-spans-only)
//              paired-hooks-only  as paired-sdk with hooks-only's null tracer instead of
//                    the SDK: our hooks alone, paired
//              paired-builds  as paired-sdk, both clients with hooks: the first from
//                    BENCH_OTEL_ENTRY_B (a path to another build's index.js), the second
//                    from BENCH_OTEL_ENTRY (or this tree's build): two builds of our
//                    hooks compared in one process, on the same SDK and the same load
//              paired-sdk  the SDK registered (as for sdk); two clients in this process,
//                    each with its own server: one with no hook, one with the hooks;
//                    blocks of calls alternate ABBA between them, so the machine's load
//                    and the context manager's cost on every promise fall on both alike:
//                    the ratio is our hooks plus the SDK's spans alone
//   transport  stdio  bench/servers/echo-server.mjs as a child process (NDJSON)
//              http   bench/servers/http-echo-server.mjs in a child process (Streamable HTTP)
// The servers are hand-written and carry no instrumentation: the client is what is measured.
// Prints one JSON line: { mode, transport, calls, cpuPerCallUs, wallPerCallUs }.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';

const here = path.dirname(fileURLToPath(import.meta.url));
const servers = path.join(here, '..', 'servers');
const [mode = 'none', transportName = 'stdio', callsArg = '5000'] = process.argv.slice(2);
const calls = Number(callsArg);
const WARMUP = Number(process.env.BENCH_WARMUP_CALLS ?? 2000);

let instrumentation = false;
let provider;
let otherBuild = false;
if (mode !== 'none') {
  // BENCH_OTEL_ENTRY: another build of @mcpkit/otel (a path), to compare two builds.
  const { createMcpInstrumentation } = await import(
    process.env.BENCH_OTEL_ENTRY ? path.resolve(process.env.BENCH_OTEL_ENTRY) : '@mcpkit/otel'
  );
  if (mode === 'paired-builds') {
    if (!process.env.BENCH_OTEL_ENTRY_B) throw new Error('paired-builds needs BENCH_OTEL_ENTRY_B');
    const other = await import(path.resolve(process.env.BENCH_OTEL_ENTRY_B));
    otherBuild = other.createMcpInstrumentation();
  }
  if (
    mode.startsWith('sdk') ||
    mode === 'paired-sdk' ||
    mode === 'paired-spans-only' ||
    mode === 'paired-builds'
  ) {
    const { registerBatchSdk } = await import('./batch-sdk.mjs');
    provider = await registerBatchSdk({
      contextManager: mode !== 'sdk-no-cm',
      sampled: mode !== 'sdk-unsampled',
      metrics: mode === 'sdk-metrics' || process.env.BENCH_OTEL_METRICS === '1',
    });
  }
  if (mode === 'hooks-only' || mode === 'paired-hooks-only') {
    const { registerNullTracer } = await import('./null-tracer.mjs');
    provider = registerNullTracer();
  }
  instrumentation =
    mode === 'sdk-no-hook' || mode === 'sdk-spans-only' ? false : createMcpInstrumentation();
}

const children = [];
async function connect(hooks) {
  const client = new McpClient({
    eraCache: false,
    protocolVersion: '2025-11-25',
    instrumentation: hooks,
  });
  await client.connect(await makeTransport());
  return client;
}

async function makeTransport() {
  if (transportName === 'stdio') {
    const { StdioTransport } = await import('@mcpkit/transport-stdio');
    return new StdioTransport({
      command: process.execPath,
      args: [path.join(servers, 'echo-server.mjs')],
    });
  }
  const child = spawn(process.execPath, [path.join(servers, 'http-echo-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const m = /PORT (\d+)/.exec(text);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`http-echo-server exited with ${code}`)));
  });
  children.push(child);
  const { StreamableHttpTransport } = await import('@mcpkit/transport-streamable-http');
  return new StreamableHttpTransport({ url: `http://127.0.0.1:${port}/mcp` });
}

const params = { name: 'echo', arguments: { text: 'hello' } };

/**
 * A call of `client` inside one CLIENT span the caller makes itself, with the attributes
 * our hooks set (the same count and kinds): the SDK's cost of a span per call, no code of
 * ours around it.
 */
async function spanWrapped(client) {
  const { SpanKind, trace } = await import('@opentelemetry/api');
  const tracer = trace.getTracer('bench');
  const options = { kind: SpanKind.CLIENT };
  let id = 0;
  return {
    callTool: async (p) => {
      const span = tracer.startSpan('tools/call echo', options);
      span.setAttribute('mcp.method.name', 'tools/call');
      span.setAttribute('gen_ai.operation.name', 'execute_tool');
      span.setAttribute('gen_ai.tool.name', 'echo');
      span.setAttribute('mcp.protocol.version', '2025-11-25');
      span.setAttribute('network.transport', transportName === 'stdio' ? 'pipe' : 'tcp');
      span.setAttribute('jsonrpc.request.id', String(++id));
      try {
        return await client.callTool(p);
      } finally {
        span.end();
      }
    },
    close: () => client.close(),
  };
}

if (
  mode === 'paired-sdk' ||
  mode === 'paired-spans-only' ||
  mode === 'paired-hooks-only' ||
  mode === 'paired-builds'
) {
  const base = await connect(otherBuild);
  const traced =
    mode === 'paired-spans-only'
      ? await spanWrapped(await connect(false))
      : await connect(instrumentation);
  const block = 500;
  const rounds = Math.max(6, Math.round(calls / block));
  const timeBlock = async (client) => {
    const before = process.cpuUsage();
    for (let i = 0; i < block; i++) await client.callTool(params);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / block;
  };
  for (let i = 0; i < Math.ceil(WARMUP / block); i++) {
    await timeBlock(base);
    await timeBlock(traced);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0;
    const x = await timeBlock(first ? base : traced);
    const y = await timeBlock(first ? traced : base);
    a.push(first ? x : y);
    b.push(first ? y : x);
  }
  const med = (v) => {
    const s = [...v].sort((p, q) => p - q);
    return s[Math.floor(s.length / 2)];
  };
  await base.close();
  await traced.close();
  await provider.shutdown();
  for (const c of children) c.kill();
  process.stdout.write(
    `${JSON.stringify({ mode, transport: transportName, calls: rounds * block, cpuPerCallUs: med(b), baseUs: med(a), ratio: med(b) / med(a) })}\n`,
  );
  process.exit(0);
}
const client =
  mode === 'sdk-spans-only'
    ? await spanWrapped(await connect(false))
    : await connect(instrumentation);
const call = () => client.callTool(params);
for (let i = 0; i < WARMUP; i++) await call();
const before = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < calls; i++) await call();
const wall = performance.now() - started;
const used = process.cpuUsage(before);
await client.close();
await provider?.shutdown();
for (const c of children) c.kill();
process.stdout.write(
  `${JSON.stringify({
    mode,
    transport: transportName,
    calls,
    cpuPerCallUs: (used.user + used.system) / calls,
    userPerCallUs: used.user / calls,
    wallPerCallUs: (wall * 1000) / calls,
  })}\n`,
);
process.exit(0);

// One run of the OpenTelemetry rows: CPU per sequential tools/call of McpClient against an
// in-process McpServer (no IPC, so the instrumentation's share is as large as it gets).
//   node call-worker.mjs <mode> <calls>
//   none       no hook (instrumentation: false), no OpenTelemetry module loaded
//   off        @mcpkit/otel and @opentelemetry/api loaded, no hook given (the request
//              path's one undefined check)
//   api        the @mcpkit/otel hooks on, @opentelemetry/api loaded, no SDK registered
//   sdk-batch  the hooks on with the SDK: BatchSpanProcessor, an exporter that drops spans
//   paired-api one process, two client+server pairs: no hook, and the hooks on with
//              @opentelemetry/api and no SDK; blocks of calls alternate between them, so
//              the load of a shared machine falls on both alike (the ratio of the medians
//              of CPU per block is the row; fresh processes vary by ±20% here)
// Prints one JSON line: { mode, calls, cpuPerCallUs } (paired-api: { mode, calls,
// cpuPerCallUs, baseUs, ratio, spread: [min, max] of the per-round ratios }).
import { McpClient } from '@mcpkit/client';
import { McpServer } from '@mcpkit/server';
import { createInProcessPair } from '@mcpkit/transport-in-process';

const [mode = 'none', callsArg = '20000'] = process.argv.slice(2);
const calls = Number(callsArg);
let instrumentation = mode === 'none' || mode === 'paired-api' ? false : undefined;
let provider;
if (mode !== 'none') {
  const { createMcpInstrumentation } = await import('@mcpkit/otel');
  if (mode === 'sdk-batch') {
    const { registerBatchSdk } = await import('./batch-sdk.mjs');
    provider = await registerBatchSdk();
  }
  if (mode !== 'off') instrumentation = createMcpInstrumentation();
  if (mode === 'paired-api') instrumentation = false;
}

async function pair(hooks) {
  const server = new McpServer({
    info: { name: 'bench', version: '1.0.0' },
    instrumentation: hooks,
  });
  server.registerTool('echo', {}, (args) => ({
    content: [{ type: 'text', text: String(args.text) }],
  }));
  const [a, b] = createInProcessPair();
  await server.connect(b);
  const client = new McpClient({
    eraCache: false,
    protocolVersion: '2025-11-25',
    instrumentation: hooks,
  });
  await client.connect(a);
  return { client, server };
}

if (mode === 'paired-api') {
  const { createMcpInstrumentation } = await import('@mcpkit/otel');
  const base = await pair(false);
  const hooked = await pair(createMcpInstrumentation());
  const params = { name: 'echo', arguments: { text: 'hello' } };
  const block = 500;
  const rounds = Math.max(10, Math.round(calls / block));
  const timeBlock = async (client) => {
    const before = process.cpuUsage();
    for (let i = 0; i < block; i++) await client.callTool(params);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / block;
  };
  for (let i = 0; i < 4; i++) {
    await timeBlock(base.client);
    await timeBlock(hooked.client);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < rounds; i++) {
    // ABBA order: neither side is always first after a GC or a neighbour's burst.
    const first = i % 2 === 0;
    const x = await timeBlock(first ? base.client : hooked.client);
    const y = await timeBlock(first ? hooked.client : base.client);
    a.push(first ? x : y);
    b.push(first ? y : x);
  }
  const med = (v) => {
    const s = [...v].sort((p, q) => p - q);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const perRound = a.map((x, i) => b[i] / x).sort((p, q) => p - q);
  const q = (f) => perRound[Math.min(perRound.length - 1, Math.floor(f * perRound.length))];
  for (const p of [base, hooked]) {
    await p.client.close();
    await p.server.close();
  }
  process.stdout.write(
    `${JSON.stringify({
      mode,
      calls: rounds * block,
      cpuPerCallUs: med(b),
      baseUs: med(a),
      ratio: med(b) / med(a),
      medianRoundRatio: med(perRound),
      spread: [q(0.25), q(0.75)],
    })}\n`,
  );
  process.exit(0);
}
const server = new McpServer({ info: { name: 'bench', version: '1.0.0' }, instrumentation });
server.registerTool('echo', {}, (args) => ({
  content: [{ type: 'text', text: String(args.text) }],
}));
const [a, b] = createInProcessPair();
await server.connect(b);
const client = new McpClient({ eraCache: false, protocolVersion: '2025-11-25', instrumentation });
await client.connect(a);
const params = { name: 'echo', arguments: { text: 'hello' } };
for (let i = 0; i < 2000; i++) await client.callTool(params);
const before = process.cpuUsage();
for (let i = 0; i < calls; i++) await client.callTool(params);
const used = process.cpuUsage(before);
await client.close();
await server.close();
await provider?.shutdown();
process.stdout.write(
  `${JSON.stringify({ mode, calls, cpuPerCallUs: (used.user + used.system) / calls })}\n`,
);

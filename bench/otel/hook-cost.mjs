// Our own share of a traced call, without a transport: CPU per `clientRequest` of the
// @mcpkit/otel hooks with the SDK (BatchSpanProcessor, an exporter that drops what it
// gets) around a `send` that answers at once, against the same `send` called bare. One
// process, blocks alternating ABBA, so a shared machine's load falls on both alike.
//   node hook-cost.mjs [rounds]   (BENCH_OTEL_METRICS=1: with a MeterProvider too, as the CLI)
// Prints one JSON line: { bareUs, hookedUs, ourUs } (medians of per-block CPU per call).
import path from 'node:path';
import { registerBatchSdk } from './batch-sdk.mjs';

// BENCH_OTEL_ENTRY: another build of @mcpkit/otel (a path), to compare two builds.
const { createMcpInstrumentation } = await import(
  process.env.BENCH_OTEL_ENTRY ? path.resolve(process.env.BENCH_OTEL_ENTRY) : '@mcpkit/otel'
);

const rounds = Number(process.argv[2] ?? 40);
const provider = await registerBatchSdk({ metrics: process.env.BENCH_OTEL_METRICS === '1' });
const hooks = createMcpInstrumentation();

const result = { content: [{ type: 'text', text: 'hello' }] };
let id = 0;
const send = (_params, onid) => {
  onid?.(++id);
  return Promise.resolve(result);
};
const params = { name: 'echo', arguments: { text: 'hello' } };
const request = {
  method: 'tools/call',
  params,
  serverName: 'bench',
  protocolVersion: '2025-11-25',
  sessionId: undefined,
  networkTransport: 'pipe',
  serverAddress: undefined,
  serverPort: undefined,
};
const block = 2000;
const bare = async () => {
  for (let i = 0; i < block; i++) await send(params);
};
const hooked = async () => {
  for (let i = 0; i < block; i++) await hooks.clientRequest(request, send);
};
const time = async (f) => {
  const before = process.cpuUsage();
  await f();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / block;
};
for (let i = 0; i < 10; i++) {
  await time(bare);
  await time(hooked);
}
const a = [];
const b = [];
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    a.push(await time(bare));
    b.push(await time(hooked));
  } else {
    b.push(await time(hooked));
    a.push(await time(bare));
  }
}
const med = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
await provider.shutdown();
process.stdout.write(
  `${JSON.stringify({ bareUs: med(a), hookedUs: med(b), ourUs: med(b) - med(a) })}\n`,
);

// One run of the OpenTelemetry rows: CPU per sequential tools/call of McpClient against an
// in-process McpServer (no IPC, so the instrumentation's share is as large as it gets).
//   node call-worker.mjs <mode> <calls>
//   none       no hook (instrumentation: false), no OpenTelemetry module loaded
//   off        @mcpkit/otel and @opentelemetry/api loaded, no hook given (the request
//              path's one undefined check)
//   api        the @mcpkit/otel hooks on, @opentelemetry/api loaded, no SDK registered
//   sdk-batch  the hooks on with the SDK: BatchSpanProcessor, an exporter that drops spans
// Prints one JSON line: { mode, calls, cpuPerCallUs }.
import { McpClient } from '@mcpkit/client';
import { McpServer } from '@mcpkit/server';
import { createInProcessPair } from '@mcpkit/transport-in-process';

const [mode = 'none', callsArg = '20000'] = process.argv.slice(2);
const calls = Number(callsArg);
let instrumentation = mode === 'none' ? false : undefined;
let provider;
if (mode !== 'none') {
  const { createMcpInstrumentation } = await import('@mcpkit/otel');
  if (mode === 'sdk-batch') {
    const { context, propagation, trace } = await import('@opentelemetry/api');
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    const { BasicTracerProvider, BatchSpanProcessor } = await import(
      '@opentelemetry/sdk-trace-base'
    );
    const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const dropping = {
      export: (_spans, done) => done({ code: 0 }),
      shutdown: async () => {},
    };
    provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] });
    trace.setGlobalTracerProvider(provider);
  }
  if (mode !== 'off') instrumentation = createMcpInstrumentation();
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

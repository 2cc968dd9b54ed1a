import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpGateway, resultText, startHttpGateway } from '../gateway/gateway-process.js';
import { waitFor } from '../support/wait-for.js';
import { type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.mjs';

/**
 * One trace from host to backend, on the wire: our McpClient (this process) →
 * `mcpkit serve --http` (the built CLI) → an HTTP backend on @mcpkit/server, and → a stdio
 * backend on the official SDK v1. The three mcpkit processes export OTLP/HTTP to a
 * receiver here, which decodes what they send.
 */
const backendFixture = fileURLToPath(
  new URL('./fixtures/traced-http-backend.mjs', import.meta.url),
);
const v1Fixture = fileURLToPath(new URL('./fixtures/sdk-v1-meta-server.mjs', import.meta.url));
const TOKEN = 'otel-e2e-token-0123456789abcdef0123';
const CLIENT = 3;
const SERVER = 2;

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let backend: ChildProcessWithoutNullStreams;
let gateway: HttpGateway;
let provider: BasicTracerProvider;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const otelEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
  backend = spawn(process.execPath, [backendFixture], {
    env: { PATH: process.env.PATH, ...otelEnv },
  });
  let stderr = '';
  const backendUrl = await new Promise<string>((resolve, reject) => {
    backend.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const m = /listening on (\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    backend.once('exit', (code) => reject(new Error(`backend exited (${code}):\n${stderr}`)));
  });
  gateway = await startHttpGateway(
    {
      web: { type: 'http', url: backendUrl },
      v1: { command: process.execPath, args: [v1Fixture] },
    },
    [],
    { ...otelEnv, OTEL_SERVICE_NAME: 'gateway', MCPKIT_SERVE_TOKEN: TOKEN },
  );
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'host' }),
    spanProcessors: [
      new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${receiver.endpoint}/v1/traces` })),
    ],
  });
  trace.setGlobalTracerProvider(provider);
}, 60_000);

afterAll(async () => {
  await provider?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
  await gateway?.close();
  if (backend && backend.exitCode === null) {
    const exited = new Promise((r) => backend.once('exit', r));
    backend.kill('SIGTERM');
    await exited;
  }
  await receiver?.close();
});

async function connect(): Promise<McpClient> {
  const client = new McpClient({
    name: 'gateway',
    eraCache: false,
    instrumentation: createMcpInstrumentation(),
  });
  await client.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      name: 'gateway',
      headers: { Authorization: `Bearer ${TOKEN}` },
    }),
  );
  return client;
}

const find = (service: string, kind: number, name: string, traceId: string) => (s: ReceivedSpan) =>
  s.service === service && s.kind === kind && s.name === name && s.traceId === traceId;

describe('OpenTelemetry end to end through mcpkit serve --http', () => {
  it('one trace: host CLIENT → gateway SERVER → gateway CLIENT → backend SERVER, parent by parent', async () => {
    const client = await connect();
    try {
      expect(
        resultText(await client.callTool({ name: 'web__echo', arguments: { text: 'hi' } })),
      ).toBe('hi');
    } finally {
      await client.close();
    }
    const host = await waitFor(
      () => receiver.spans.find((s) => s.service === 'host' && s.name === 'tools/call web__echo'),
      'the host span',
    );
    expect(host.kind).toBe(CLIENT);
    const t = host.traceId;
    const face = await waitFor(
      () => receiver.spans.find(find('gateway', SERVER, 'tools/call web__echo', t)),
      "the gateway's SERVER span in the host's trace",
    );
    expect(face.parentSpanId).toBe(host.spanId);
    const forward = await waitFor(
      () => receiver.spans.find(find('gateway', CLIENT, 'tools/call echo', t)),
      "the gateway's CLIENT span to the backend",
    );
    expect(forward.parentSpanId).toBe(face.spanId);
    expect(forward.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'mcpkit.server.name': 'web',
      'network.transport': 'tcp',
    });
    const served = await waitFor(
      () => receiver.spans.find(find('traced-http-backend', SERVER, 'tools/call echo', t)),
      "the backend's SERVER span",
    );
    expect(served.parentSpanId).toBe(forward.spanId);
    expect(served.attributes['network.transport']).toBe('tcp');
  });

  it('the SDK v1 stdio backend receives traceparent in _meta, in the trace of the host span', async () => {
    const client = await connect();
    let meta: { traceparent?: string };
    try {
      meta = JSON.parse(resultText(await client.callTool({ name: 'v1__meta', arguments: {} })));
    } finally {
      await client.close();
    }
    const host = await waitFor(
      () => receiver.spans.find((s) => s.service === 'host' && s.name === 'tools/call v1__meta'),
      'the host span',
    );
    expect(meta.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, parentId] = meta.traceparent!.split('-');
    expect(traceId).toBe(host.traceId);
    const forward = await waitFor(
      () => receiver.spans.find(find('gateway', CLIENT, 'tools/call meta', host.traceId)),
      "the gateway's CLIENT span to the stdio backend",
    );
    expect(parentId).toBe(forward.spanId);
    expect(forward.attributes['network.transport']).toBe('pipe');
  });
});

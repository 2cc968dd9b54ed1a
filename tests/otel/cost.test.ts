import { McpClient } from '@mcpkit/client';
import type { McpInstrumentation } from '@mcpkit/jsonrpc';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { SpanKind } from '@opentelemetry/api';
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { startSdk } from './sdk.js';

/**
 * The cost rules of @mcpkit/otel (issue #26: zero cost when off) and the HTTP side of the
 * client spans, with the real OpenTelemetry SDK (in-memory exporter) where there is one.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** The hooks, with the number of times each was entered (a request built for them). */
function counted(hooks: McpInstrumentation) {
  const entered = { client: 0, server: 0 };
  const wrapped: McpInstrumentation = {
    ...(hooks.enabled ? { enabled: () => hooks.enabled!() } : {}),
    clientRequest: (request, send) => {
      entered.client++;
      return hooks.clientRequest!(request, send);
    },
    serverRequest: (request, handle) => {
      entered.server++;
      return hooks.serverRequest!(request, handle);
    },
  };
  return { wrapped, entered };
}

async function inProcess(hooks: McpInstrumentation) {
  const seenMeta: Array<Record<string, unknown> | undefined> = [];
  const server = new McpServer({
    info: { name: 'cost', version: '1.0.0' },
    instrumentation: hooks,
  });
  server.registerTool('echo', {}, (_args, ctx) => {
    seenMeta.push(ctx.meta);
    return { content: [{ type: 'text', text: 'ok' }] };
  });
  const [a, b] = createInProcessPair();
  await server.connect(b);
  cleanups.push(() => server.close());
  const client = new McpClient({
    eraCache: false,
    protocolVersion: '2025-11-25',
    instrumentation: hooks,
  });
  await client.connect(a);
  cleanups.push(() => client.close());
  return { client, seenMeta };
}

describe('@mcpkit/otel costs nothing per request while no SDK is registered', () => {
  it('with @opentelemetry/api and no SDK the hooks are never entered; an SDK registered later is used; disabled, skipped again', async () => {
    const { wrapped, entered } = counted(createMcpInstrumentation());
    const { client, seenMeta } = await inProcess(wrapped);
    await client.callTool({ name: 'echo' });
    // No SDK: the client and the server skipped the hooks (no description object, no
    // closure, no span, no _meta copy).
    expect(entered).toEqual({ client: 0, server: 0 });
    expect(seenMeta[0]?.traceparent).toBeUndefined();

    const sdk = startSdk();
    await client.callTool({ name: 'echo' });
    expect(entered.client).toBeGreaterThan(0);
    expect(entered.server).toBeGreaterThan(0);
    const spans = sdk.spans().filter((s) => s.name === 'tools/call echo');
    expect(spans.map((s) => s.kind).sort()).toEqual([SpanKind.SERVER, SpanKind.CLIENT].sort());
    expect(seenMeta[1]?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await sdk[Symbol.asyncDispose]();

    const before = { ...entered };
    await client.callTool({ name: 'echo' });
    expect(entered).toEqual(before);
    expect(seenMeta[2]?.traceparent).toBeUndefined();
  });

  it('a span the sampler drops gets no attributes, yet its traceparent (not sampled) still reaches the server', async () => {
    const sdk = startSdk(); // the context manager and the W3C propagator; spans: none here
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const tracerProvider = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
    cleanups.push(() => tracerProvider.shutdown());
    const { client, seenMeta } = await inProcess(createMcpInstrumentation({ tracerProvider }));
    await client.callTool({ name: 'echo' });
    expect(seenMeta[0]?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(sdk.spans()).toEqual([]);
  });
});

describe('client spans over Streamable HTTP', () => {
  it.each(['2025-11-25', '2026-07-28'])(
    'over %s: server.address and server.port of the URL, and traceparent as an HTTP header equal to the one in _meta',
    async (version) => {
      const sdk = startSdk();
      cleanups.push(() => sdk[Symbol.asyncDispose]());
      const hooks = createMcpInstrumentation();
      const headers: Array<string | string[] | undefined> = [];
      const metas: Array<unknown> = [];
      const server = new McpServer({
        info: { name: 'http', version: '1.0.0' },
        instrumentation: hooks,
      });
      server.registerTool('echo', {}, (_args, ctx) => {
        metas.push(ctx.meta?.traceparent);
        return { content: [{ type: 'text', text: 'ok' }] };
      });
      const listener = await listenStreamableHttp(server, {
        host: '127.0.0.1',
        port: 0,
        // Asked once per POST with the request: where the test reads the headers.
        authInfo: (req) => {
          headers.push(req.headers.traceparent);
          return undefined;
        },
      });
      cleanups.push(() => listener.close());
      const client = new McpClient({
        name: 'remote',
        eraCache: false,
        protocolVersion: version,
        instrumentation: hooks,
      });
      await client.connect(new StreamableHttpTransport({ url: listener.url }));
      cleanups.push(() => client.close());
      await client.callTool({ name: 'echo' });

      const url = new URL(listener.url);
      const span = sdk
        .spans()
        .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo')!;
      expect(span.attributes['server.address']).toBe('127.0.0.1');
      expect(span.attributes['server.port']).toBe(Number(url.port));
      expect(span.attributes['network.transport']).toBe('tcp');
      const traceparent = `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;
      expect(metas).toEqual([traceparent]);
      expect(headers).toContain(traceparent);
    },
  );
});

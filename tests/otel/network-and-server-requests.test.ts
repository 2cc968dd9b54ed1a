import { McpClient } from '@mcpkit/client';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { startSdk } from './sdk.js';

/**
 * The network attributes of the MCP semantic conventions (`network.protocol.name` and
 * `.version`, `client.address`/`client.port` on the server's spans, `server.address`/`port`
 * on the client's) over a real Streamable HTTP listener, and the spans of requests a server
 * sends its client (`sampling/createMessage`, `elicitation/create`, `roots/list`): a CLIENT
 * span on the server, a SERVER span on the client, one trace through `_meta` both ways.
 * The real SDK with its in-memory exporter.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A server whose `ask` tool asks its client for a sampling, an elicitation and its roots. */
function askingServer(hooks: ReturnType<typeof createMcpInstrumentation>) {
  const server = new McpServer({
    info: { name: 'asker', version: '1.0.0' },
    instrumentation: hooks,
  });
  server.registerTool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  server.registerTool('ask', {}, async (_args, ctx) => {
    const sampled = await ctx.request('sampling/createMessage', {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 5,
    });
    const elicited = await ctx.request('elicitation/create', {
      message: 'name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    const roots = await ctx.request('roots/list', {});
    return {
      content: [{ type: 'text', text: JSON.stringify([sampled.model, elicited.action, roots]) }],
    };
  });
  return server;
}

/** A client answering the server's requests; what each handler saw in `_meta`. */
function answeringClient(
  hooks: ReturnType<typeof createMcpInstrumentation>,
  seen: Record<string, unknown>,
) {
  return new McpClient({
    name: 'asked',
    eraCache: false,
    protocolVersion: '2025-11-25',
    instrumentation: hooks,
    handlers: {
      sampling: (params) => {
        seen.sampling = params._meta;
        return {
          role: 'assistant',
          content: { type: 'text', text: 'hello' },
          model: 'm1',
        };
      },
      elicitation: (params) => {
        seen.elicitation = params._meta;
        return { action: 'accept', content: { name: 'x' } };
      },
      roots: () => [{ uri: 'file:///tmp', name: 'tmp' }],
    },
  });
}

function one(spans: ReadableSpan[], name: string, kind: SpanKind): ReadableSpan {
  const found = spans.filter((s) => s.name === name && s.kind === kind);
  expect(found, `${name} ${SpanKind[kind]}`).toHaveLength(1);
  return found[0]!;
}

/** The server-to-client requests: CLIENT span on the server, SERVER child on the client. */
function expectServerRequestSpans(spans: ReadableSpan[], seen: Record<string, unknown>) {
  const call = one(spans, 'tools/call ask', SpanKind.CLIENT);
  const handling = one(spans, 'tools/call ask', SpanKind.SERVER);
  const trace = call.spanContext().traceId;
  for (const method of ['sampling/createMessage', 'elicitation/create', 'roots/list']) {
    const sent = one(spans, method, SpanKind.CLIENT);
    const answered = one(spans, method, SpanKind.SERVER);
    // The server's request is a child of the tools/call it handles; the client's answer a
    // child of that request (the context went to the client in `_meta`).
    expect(sent.spanContext().traceId).toBe(trace);
    expect(sent.parentSpanContext?.spanId).toBe(handling.spanContext().spanId);
    expect(answered.spanContext().traceId).toBe(trace);
    expect(answered.parentSpanContext?.spanId).toBe(sent.spanContext().spanId);
    expect(sent.attributes['mcp.method.name']).toBe(method);
    expect(answered.attributes['mcp.method.name']).toBe(method);
    // One JSON-RPC id, seen from both ends.
    expect(typeof sent.attributes['jsonrpc.request.id']).toBe('string');
    expect(answered.attributes['jsonrpc.request.id']).toBe(sent.attributes['jsonrpc.request.id']);
    expect(sent.attributes['mcp.protocol.version']).toBe('2025-11-25');
    expect(answered.attributes['mcp.protocol.version']).toBe('2025-11-25');
  }
  const sampling = one(spans, 'sampling/createMessage', SpanKind.CLIENT);
  expect(seen.sampling).toMatchObject({
    traceparent: `00-${trace}-${sampling.spanContext().spanId}-01`,
  });
}

/** The asking server and the answering client, in process, both with the MCP hooks. */
async function askingPair() {
  const hooks = createMcpInstrumentation();
  const server = askingServer(hooks);
  const [a, b] = createInProcessPair();
  await server.connect(b);
  cleanups.push(() => server.close());
  const seen: Record<string, unknown> = {};
  const client = answeringClient(hooks, seen);
  await client.connect(a);
  cleanups.push(() => client.close());
  return { client, seen };
}

describe('server-to-client requests are traced both ways', () => {
  it('in process: sampling/createMessage, elicitation/create and roots/list are CLIENT spans on the server and SERVER spans on the client, in the caller’s trace', async () => {
    const sdk = startSdk();
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const { client, seen } = await askingPair();
    const result = await client.callTool({ name: 'ask', arguments: {} });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: JSON.stringify(['m1', 'accept', { roots: [{ uri: 'file:///tmp', name: 'tmp' }] }]),
      },
    ]);
    expectServerRequestSpans(sdk.spans(), seen);
    // The sender's duration metric counts the server's requests too (the conventions'
    // client metric is "as observed on the sender").
    const sent = await sdk.metric('mcp.client.operation.duration');
    const methods = sent!.dataPoints.map((p) => p.attributes['mcp.method.name']);
    expect(methods).toEqual(expect.arrayContaining(['sampling/createMessage', 'roots/list']));
  });

  it('with no SDK registered, the server’s requests go out untouched (no _meta added)', async () => {
    const { client, seen } = await askingPair();
    await client.callTool({ name: 'ask', arguments: {} });
    expect(seen.sampling).toBeUndefined();
    expect(seen.elicitation).toBeUndefined();
  });
});

describe('network attributes over Streamable HTTP', () => {
  async function overHttp(version: string) {
    const sdk = startSdk();
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const hooks = createMcpInstrumentation();
    const server = askingServer(hooks);
    const listener = await listenStreamableHttp(server, { host: '127.0.0.1', port: 0 });
    cleanups.push(() => listener.close());
    const seen: Record<string, unknown> = {};
    const client = new McpClient({
      name: 'asked',
      eraCache: false,
      protocolVersion: version,
      instrumentation: hooks,
    });
    await client.connect(new StreamableHttpTransport({ url: listener.url }));
    cleanups.push(() => client.close());
    await client.callTool({ name: 'echo', arguments: {} });
    return { sdk, port: Number(listener.url.port), seen };
  }

  it.each(['2025-11-25', '2026-07-28'])(
    '%s: the client span has network.protocol.name http, version 1.1, server.address/port; the server span client.address/port of the socket',
    async (version) => {
      const { sdk, port } = await overHttp(version);
      const spans = sdk.spans();
      const call = one(spans, 'tools/call echo', SpanKind.CLIENT);
      const handled = one(spans, 'tools/call echo', SpanKind.SERVER);
      expect(call.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'network.protocol.version': '1.1',
        'server.address': '127.0.0.1',
        'server.port': port,
      });
      expect(call.attributes['client.address']).toBeUndefined();
      expect(handled.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'network.protocol.version': '1.1',
        'client.address': '127.0.0.1',
      });
      const clientPort = handled.attributes['client.port'];
      expect(typeof clientPort).toBe('number');
      expect(clientPort).not.toBe(port);
      // The duration metrics keep the protocol (low cardinality), not the client's port.
      for (const name of ['mcp.client.operation.duration', 'mcp.server.operation.duration']) {
        const metric = await sdk.metric(name);
        const point = metric!.dataPoints.find(
          (p) => p.attributes['mcp.method.name'] === 'tools/call',
        )!;
        expect(point.attributes).toMatchObject({
          'network.protocol.name': 'http',
          'network.protocol.version': '1.1',
        });
        expect(point.attributes['client.port']).toBeUndefined();
      }
    },
  );

  it('2025-11-25: the server’s requests ride the call’s SSE stream and are traced both ways', async () => {
    const sdk = startSdk();
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const hooks = createMcpInstrumentation();
    const server = askingServer(hooks);
    const listener = await listenStreamableHttp(server, { host: '127.0.0.1', port: 0 });
    cleanups.push(() => listener.close());
    const seen: Record<string, unknown> = {};
    const client = answeringClient(hooks, seen);
    await client.connect(new StreamableHttpTransport({ url: listener.url }));
    cleanups.push(() => client.close());
    await client.callTool({ name: 'ask', arguments: {} });
    const spans = sdk.spans();
    expectServerRequestSpans(spans, seen);
    // The server's CLIENT span names its peer, the MCP client, by the socket it came on.
    expect(one(spans, 'roots/list', SpanKind.CLIENT).attributes).toMatchObject({
      'network.protocol.name': 'http',
      'client.address': '127.0.0.1',
    });
    expect(one(spans, 'roots/list', SpanKind.SERVER).attributes).toMatchObject({
      'network.protocol.name': 'http',
      'server.address': '127.0.0.1',
      'server.port': Number(listener.url.port),
    });
  });
});

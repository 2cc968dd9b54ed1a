import { McpClient } from '@mcpkit/client';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { faultServer } from '../manager/helpers.js';
import { startSdk } from './sdk.js';

/**
 * The parts of the OpenTelemetry MCP semantic conventions beyond one span per request,
 * with the real SDK (in-memory exporter): `jsonrpc.request.id` on client spans, the
 * `initialize` handshake and client notifications as spans of their own, the server
 * continuing a trace from HTTP headers when `_meta` has none (`_meta` wins when both
 * do), and the session duration histograms.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function sdkFor() {
  const sdk = startSdk();
  cleanups.push(() => sdk[Symbol.asyncDispose]());
  return sdk;
}

async function inProcess(version = '2025-11-25') {
  const hooks = createMcpInstrumentation();
  const server = new McpServer({
    info: { name: 'conv', version: '1.0.0' },
    instrumentation: hooks,
  });
  server.registerTool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  const [a, b] = createInProcessPair();
  await server.connect(b);
  cleanups.push(() => server.close());
  const client = new McpClient({
    name: 'local',
    eraCache: false,
    protocolVersion: version,
    instrumentation: hooks,
  });
  await client.connect(a);
  return { client, server, hooks };
}

/** The stdio fault fixture, as a client with the hooks on. */
async function stdioClient(mode: string) {
  const client = new McpClient({
    name: 'faulty',
    eraCache: false,
    protocolVersion: '2025-11-25',
    instrumentation: createMcpInstrumentation(),
  });
  await client.connect(
    new StdioTransport({ command: process.execPath, args: [faultServer, mode] }),
  );
  cleanups.push(() => client.close());
  return client;
}

describe('client spans in the MCP semantic conventions', () => {
  it('the initialize handshake is a CLIENT span with its SERVER child; every client span carries jsonrpc.request.id, equal to the server span of the same request', async () => {
    const sdk = sdkFor();
    const { client } = await inProcess();
    await client.callTool({ name: 'echo' });
    await client.close();

    const byKind = (name: string, kind: SpanKind) =>
      sdk.spans().find((s) => s.name === name && s.kind === kind)!;
    const initClient = byKind('initialize', SpanKind.CLIENT);
    const initServer = byKind('initialize', SpanKind.SERVER);
    expect(initClient.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'mcp.protocol.version': '2025-11-25',
      'jsonrpc.request.id': '1',
    });
    expect(initServer.parentSpanContext?.spanId).toBe(initClient.spanContext().spanId);
    expect(initServer.attributes['jsonrpc.request.id']).toBe('1');

    const callClient = byKind('tools/call echo', SpanKind.CLIENT);
    const callServer = byKind('tools/call echo', SpanKind.SERVER);
    expect(callClient.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(callClient.attributes['jsonrpc.request.id']).toBe(
      callServer.attributes['jsonrpc.request.id'],
    );

    // notifications/initialized: a CLIENT span of its own, no request id (a notification).
    const initialized = byKind('notifications/initialized', SpanKind.CLIENT);
    expect(initialized.attributes['mcp.method.name']).toBe('notifications/initialized');
    expect(initialized.attributes['jsonrpc.request.id']).toBeUndefined();
    expect(initialized.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('2026-07-28: server/discover is the handshake span, with its request id', async () => {
    const sdk = sdkFor();
    const { client } = await inProcess('2026-07-28');
    await client.callTool({ name: 'echo' });
    const discover = sdk
      .spans()
      .find((s) => s.name === 'server/discover' && s.kind === SpanKind.CLIENT)!;
    expect(discover.attributes).toMatchObject({
      'mcp.method.name': 'server/discover',
      'mcp.protocol.version': '2026-07-28',
      'jsonrpc.request.id': '1',
    });
  });

  it('a cancelled call sends notifications/cancelled as a CLIENT span (the server gets it); the call span ends with the abort as error.type', async () => {
    const sdk = sdkFor();
    const client = await stdioClient('cancel-log');
    const controller = new AbortController();
    const waiting = client.callTool({ name: 'wait' }, { signal: controller.signal });
    // Abort once the server holds the request (its "cancelled" tool lists what waits).
    for (;;) {
      const state = await client.callTool({ name: 'cancelled' });
      if (JSON.parse((state.content[0] as { text: string }).text).waiting.length > 0) break;
    }
    controller.abort(new Error('the user gave up'));
    await expect(waiting).rejects.toThrow('the user gave up');
    // The server saw the cancellation (its log of cancelled ids).
    const seen = await client.callTool({ name: 'cancelled' });
    expect(JSON.parse((seen.content[0] as { text: string }).text).cancelled).toHaveLength(1);

    const cancelled = sdk.spans().find((s) => s.name === 'notifications/cancelled')!;
    expect(cancelled.kind).toBe(SpanKind.CLIENT);
    expect(cancelled.attributes).toMatchObject({
      'mcp.method.name': 'notifications/cancelled',
      'network.transport': 'pipe',
      'mcpkit.server.name': 'faulty',
    });
    const call = sdk.spans().find((s) => s.name === 'tools/call wait')!;
    expect(call.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(call.status.code).toBe(SpanStatusCode.ERROR);
    expect(call.attributes['error.type']).toBe('_OTHER');
  });
});

describe('the server continues a trace from HTTP headers', () => {
  async function httpServer() {
    const hooks = createMcpInstrumentation();
    const server = new McpServer({
      info: { name: 'hdr', version: '1.0.0' },
      instrumentation: hooks,
    });
    server.registerTool('echo', {}, () => ({ content: [{ type: 'text', text: 'ok' }] }));
    const listener = await listenStreamableHttp(server, { host: '127.0.0.1', port: 0 });
    cleanups.push(() => listener.close());
    return listener.url;
  }

  /** One 2026-07-28 tools/call POST (no session) with the given headers and `_meta`. */
  async function post(
    url: string | URL,
    headers: Record<string, string>,
    meta: Record<string, unknown>,
  ) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'echo',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
            ...meta,
          },
        },
      }),
    });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    return body;
  }

  const HEADER_TRACE = '0af7651916cd43dd8448eb211c80319c';
  const HEADER_SPAN = 'b7ad6b7169203331';
  const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
  const META_SPAN = '00f067aa0ba902b7';

  it('no context in _meta: the traceparent header is the parent', async () => {
    const sdk = sdkFor();
    const url = await httpServer();
    await post(url, { traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01` }, {});
    const span = sdk
      .spans()
      .find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo')!;
    expect(span.spanContext().traceId).toBe(HEADER_TRACE);
    expect(span.parentSpanContext?.spanId).toBe(HEADER_SPAN);
    expect(span.attributes['jsonrpc.request.id']).toBe('7');
    expect(span.links).toEqual([]);
  });

  it('both: _meta wins, the header context is linked', async () => {
    const sdk = sdkFor();
    const url = await httpServer();
    await post(
      url,
      { traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01` },
      { traceparent: `00-${META_TRACE}-${META_SPAN}-01` },
    );
    const span = sdk
      .spans()
      .find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo')!;
    expect(span.spanContext().traceId).toBe(META_TRACE);
    expect(span.parentSpanContext?.spanId).toBe(META_SPAN);
    expect(span.links.map((l) => l.context.spanId)).toEqual([HEADER_SPAN]);
  });
});

describe('session duration histograms', () => {
  it('mcp.client.session.duration and mcp.server.session.duration: one point per session, version and transport; no error.type after a clean close', async () => {
    const sdk = sdkFor();
    const { client } = await inProcess();
    await client.callTool({ name: 'echo' });
    await client.close();
    const clientMetric = await sdk.metric('mcp.client.session.duration');
    expect(clientMetric?.descriptor.unit).toBe('s');
    const points = clientMetric!.dataPoints;
    expect(points).toHaveLength(1);
    expect(points[0]!.attributes).toEqual({ 'mcp.protocol.version': '2025-11-25' });
    expect((points[0]!.value as { count: number }).count).toBe(1);
    const serverMetric = await sdk.metric('mcp.server.session.duration');
    expect(serverMetric!.dataPoints.map((p) => p.attributes)).toEqual([
      { 'mcp.protocol.version': '2025-11-25' },
    ]);
  });

  it('a session that ends with the server crashing has error.type; network.transport pipe', async () => {
    const sdk = sdkFor();
    const client = await stdioClient('ok');
    const closed = new Promise<Error | undefined>((resolve) => {
      client.onclose = resolve;
    });
    await expect(client.callTool({ name: 'crash' })).rejects.toThrow();
    const cause = await closed;
    expect(cause).toBeInstanceOf(Error);
    const metric = await sdk.metric('mcp.client.session.duration');
    const [point] = metric!.dataPoints;
    expect(point!.attributes).toMatchObject({
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'pipe',
    });
    expect(typeof point!.attributes['error.type']).toBe('string');
    expect(point!.attributes['error.type']).not.toBe('');
  });
});

import { McpClient } from '@mcpkit/client';
import { createMcpInstrumentation } from '@mcpkit/otel';
import { McpServer } from '@mcpkit/server';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { startSdk } from './sdk.js';

/**
 * Span shape and attributes of @mcpkit/client and @mcpkit/server with the real OpenTelemetry
 * SDK (in-memory exporter): the MCP semantic conventions' names, kinds, attributes,
 * `error.type`, the trace context carried in `params._meta`, the duration metrics.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function pair(options: { capture?: boolean; version?: string } = {}) {
  const sdk = startSdk();
  cleanups.push(() => sdk[Symbol.asyncDispose]());
  const hooks = createMcpInstrumentation({
    captureToolArguments: options.capture ?? false,
    captureToolResult: options.capture ?? false,
  });
  const seenMeta: unknown[] = [];
  const server = new McpServer({
    info: { name: 'traced', version: '1.0.0' },
    instrumentation: hooks,
  });
  server.registerTool('echo', {}, (args, ctx) => {
    seenMeta.push(ctx.meta ?? (args as { _meta?: unknown })._meta);
    return { content: [{ type: 'text', text: String((args as { text?: string }).text) }] };
  });
  // Answers only when the call is cancelled (a server that never answers in time).
  server.registerTool(
    'stall',
    {},
    (_args, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve({ content: [] }), { once: true }),
      ),
  );
  server.registerTool('broken', {}, () => ({
    isError: true,
    content: [{ type: 'text', text: 'it broke' }],
  }));
  // A tool error only when asked: one tool, two outcomes.
  server.registerTool('flaky', {}, (args) => ({
    ...((args as { fail?: boolean }).fail === true ? { isError: true } : {}),
    content: [],
  }));
  const [clientEnd, serverEnd] = createInProcessPair();
  await server.connect(serverEnd);
  cleanups.push(() => server.close());
  const client = new McpClient({
    name: 'local',
    eraCache: false,
    instrumentation: hooks,
    ...(options.version ? { protocolVersion: options.version } : {}),
  });
  await client.connect(clientEnd);
  cleanups.push(() => client.close());
  return { sdk, client, seenMeta };
}

describe('OpenTelemetry spans of McpClient and McpServer', () => {
  it.each(['2025-11-25', '2026-07-28'])(
    'a tools/call over %s is a CLIENT span and its SERVER child in one trace, named "tools/call echo"',
    async (version) => {
      const { sdk, client } = await pair({ version });
      await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      const spans = sdk.spans().filter((s) => s.name === 'tools/call echo');
      const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT)!;
      const serverSpan = spans.find((s) => s.kind === SpanKind.SERVER)!;
      expect(clientSpan).toBeDefined();
      expect(serverSpan).toBeDefined();
      expect(serverSpan.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(clientSpan.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': version,
        'mcpkit.server.name': 'local',
      });
      expect(serverSpan.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'echo',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': version,
      });
      expect(typeof serverSpan.attributes['jsonrpc.request.id']).toBe('string');
      // Opt-in only.
      expect(clientSpan.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      expect(clientSpan.attributes['error.type']).toBeUndefined();
      expect(clientSpan.status.code).toBe(SpanStatusCode.UNSET);
    },
  );

  it('the tool handler sees traceparent (unprefixed) in params._meta', async () => {
    const { client, seenMeta, sdk } = await pair({ version: '2025-11-25' });
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const clientSpan = sdk
      .spans()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo')!;
    const meta = seenMeta[0] as Record<string, unknown> | undefined;
    expect(meta?.traceparent).toBe(
      `00-${clientSpan.spanContext().traceId}-${clientSpan.spanContext().spanId}-01`,
    );
  });

  it('isError: true is error.type tool_error on both sides, status ERROR', async () => {
    const { sdk, client } = await pair();
    const result = await client.callTool({ name: 'broken' });
    expect(result.isError).toBe(true);
    const spans = sdk.spans().filter((s) => s.name === 'tools/call broken');
    expect(spans.map((s) => s.attributes['error.type'])).toEqual(['tool_error', 'tool_error']);
    expect(spans.every((s) => s.status.code === SpanStatusCode.ERROR)).toBe(true);
  });

  it('a JSON-RPC error is error.type and rpc.response.status_code with its code, the message as status', async () => {
    const { sdk, client } = await pair();
    await expect(client.readResource('test://missing')).rejects.toThrow();
    const span = sdk
      .spans()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'resources/read')!;
    expect(span.attributes['mcp.resource.uri']).toBe('test://missing');
    const code = span.attributes['rpc.response.status_code'];
    expect(code).toMatch(/^-32\d\d\d$/);
    expect(span.attributes['error.type']).toBe(code);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.status.message).toBeTruthy();
  });

  it('a call that times out ends with our error code as error.type (MCPKIT_TIMEOUT), status ERROR', async () => {
    const { sdk, client } = await pair();
    await expect(
      client.callTool({ name: 'stall', arguments: {} }, { timeoutMs: 50 }),
    ).rejects.toMatchObject({ code: 'MCPKIT_TIMEOUT' });
    const span = sdk
      .spans()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call stall')!;
    expect(span.attributes['error.type']).toBe('MCPKIT_TIMEOUT');
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('captures arguments and result when opted in', async () => {
    const { sdk, client } = await pair({ capture: true });
    await client.callTool({ name: 'echo', arguments: { text: 'secret' } });
    const span = sdk
      .spans()
      .find((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo')!;
    expect(JSON.parse(String(span.attributes['gen_ai.tool.call.arguments']))).toEqual({
      text: 'secret',
    });
    expect(JSON.parse(String(span.attributes['gen_ai.tool.call.result'])).content[0].text).toBe(
      'secret',
    );
  });

  it("a host's active execute_tool span gets the MCP attributes; no CLIENT span of our own", async () => {
    const { sdk, client } = await pair();
    const tracer = trace.getTracer('host-agent');
    await tracer.startActiveSpan(
      'execute_tool echo',
      { attributes: { 'gen_ai.operation.name': 'execute_tool' } },
      async (span) => {
        await client.callTool({ name: 'echo', arguments: { text: 'x' } });
        span.end();
      },
    );
    const host = sdk.spans().find((s) => s.name === 'execute_tool echo')!;
    expect(host.attributes['mcp.method.name']).toBe('tools/call');
    expect(
      sdk.spans().filter((s) => s.kind === SpanKind.CLIENT && s.name === 'tools/call echo'),
    ).toEqual([]);
    const serverSpan = sdk
      .spans()
      .find((s) => s.kind === SpanKind.SERVER && s.name === 'tools/call echo')!;
    expect(serverSpan.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
  });

  it('records mcp.client.operation.duration and mcp.server.operation.duration in seconds', async () => {
    const { sdk, client } = await pair();
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    await client.callTool({ name: 'broken' });
    for (const name of ['mcp.client.operation.duration', 'mcp.server.operation.duration']) {
      const metric = await sdk.metric(name);
      expect(metric?.descriptor.unit).toBe('s');
      const points = metric!.dataPoints.filter(
        (p) => p.attributes['gen_ai.tool.name'] !== undefined,
      );
      expect(
        points.map((p) => [p.attributes['gen_ai.tool.name'], p.attributes['error.type']]).sort(),
      ).toEqual([
        ['broken', 'tool_error'],
        ['echo', undefined],
      ]);
    }
  });

  it('durations of the same tool with different outcomes stay apart, call after call (attribute sets are reused per outcome)', async () => {
    const { sdk, client } = await pair();
    for (const fail of [false, true, false, true, false])
      await client.callTool({ name: 'flaky', arguments: { fail } });
    const metric = await sdk.metric('mcp.client.operation.duration');
    const counts = metric!.dataPoints
      .filter((p) => p.attributes['gen_ai.tool.name'] !== undefined)
      .map((p) => [
        p.attributes['gen_ai.tool.name'],
        p.attributes['error.type'],
        (p.value as { count: number }).count,
      ])
      .sort();
    expect(counts).toEqual([
      ['flaky', undefined, 3],
      ['flaky', 'tool_error', 2],
    ]);
  });

  it('a client without instrumentation sends no traceparent even with an SDK registered', async () => {
    const sdk = startSdk();
    cleanups.push(() => sdk[Symbol.asyncDispose]());
    const seen: unknown[] = [];
    const server = new McpServer({
      info: { name: 'plain', version: '1.0.0' },
      instrumentation: false,
    });
    server.registerTool('echo', {}, (_args, ctx) => {
      seen.push(ctx.meta);
      return { content: [] };
    });
    const [a, b] = createInProcessPair();
    await server.connect(b);
    cleanups.push(() => server.close());
    const client = new McpClient({ eraCache: false, protocolVersion: '2025-11-25' });
    await client.connect(a);
    cleanups.push(() => client.close());
    await client.callTool({ name: 'echo' });
    expect((seen[0] as Record<string, unknown> | undefined)?.traceparent).toBeUndefined();
    expect(sdk.spans()).toEqual([]);
  });
});

import type { InstrumentedRequest, McpInstrumentation } from '@mcpkit/jsonrpc';
import {
  type Attributes,
  type Context,
  context,
  type Histogram,
  type Link,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { McpAttr, McpMetric } from './attributes.js';

export interface McpOtelOptions {
  /** Default: the global tracer provider (`@opentelemetry/api`'s `trace`). */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider;
  /** Record `gen_ai.tool.call.arguments` (opt-in: arguments may hold secrets). */
  captureToolArguments?: boolean;
  /** Record `gen_ai.tool.call.result` (opt-in: results may hold personal data). */
  captureToolResult?: boolean;
  /**
   * A `tools/call` made while a host's `execute_tool` span is active adds the MCP
   * attributes to that span instead of opening a CLIENT span of its own (the conventions'
   * advice). Default `true`.
   */
  reuseExecuteToolSpan?: boolean;
}

const NAME = '@mcpkit/otel';
const VERSION = '0.1.0';
/** Buckets the conventions advise for the operation and session durations (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** A `_meta` value longer than this is not trace context (W3C caps headers far lower). */
const MAX_CONTEXT_VALUE = 8192;

/** Reads trace context from a `_meta` object a peer sent: strings only, bounded. */
const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof value === 'string' && value.length <= MAX_CONTEXT_VALUE ? value : undefined;
  },
};

/** The low-cardinality target of a span name: the tool or prompt. */
function targetOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined;
  const name = params?.name;
  return typeof name === 'string' ? name : undefined;
}

function requestAttributes(request: InstrumentedRequest): Attributes {
  const { method, params } = request;
  const attributes: Attributes = { [McpAttr.MethodName]: method };
  const target = targetOf(method, params);
  if (method === 'tools/call') {
    attributes[McpAttr.OperationName] = 'execute_tool';
    if (target !== undefined) attributes[McpAttr.ToolName] = target;
  } else if (method === 'prompts/get' && target !== undefined) {
    attributes[McpAttr.PromptName] = target;
  } else if (
    method === 'resources/read' ||
    method === 'resources/subscribe' ||
    method === 'resources/unsubscribe'
  ) {
    if (typeof params?.uri === 'string') attributes[McpAttr.ResourceUri] = params.uri;
  }
  if (request.protocolVersion !== undefined)
    attributes[McpAttr.ProtocolVersion] = request.protocolVersion;
  if (request.sessionId !== undefined) attributes[McpAttr.SessionId] = request.sessionId;
  if (request.networkTransport !== undefined)
    attributes[McpAttr.NetworkTransport] = request.networkTransport;
  if (request.requestId !== undefined) attributes[McpAttr.RequestId] = String(request.requestId);
  if (request.serverName !== undefined) attributes[McpAttr.ServerName] = request.serverName;
  return attributes;
}

/** The attributes a duration metric keeps (the low-cardinality ones). */
function metricAttributes(attributes: Attributes): Attributes {
  const kept: Attributes = {};
  for (const key of [
    McpAttr.MethodName,
    McpAttr.ToolName,
    McpAttr.PromptName,
    McpAttr.OperationName,
    McpAttr.ProtocolVersion,
    McpAttr.NetworkTransport,
    McpAttr.ErrorType,
    McpAttr.ResponseStatusCode,
  ]) {
    if (attributes[key] !== undefined) kept[key] = attributes[key];
  }
  return kept;
}

/**
 * `error.type` of a failed request: the JSON-RPC error code the peer answered with, else
 * our error's `MCPKIT_*` code (a timeout, a closed connection), else `_OTHER`.
 */
export function errorTypeOf(error: unknown): { type: string; rpcCode?: string; message?: string } {
  const e = error as { rpcCode?: unknown; code?: unknown; message?: unknown } | undefined;
  const message = typeof e?.message === 'string' ? e.message : undefined;
  const withMessage = message !== undefined ? { message } : {};
  if (typeof e?.rpcCode === 'number') {
    const rpcCode = String(e.rpcCode);
    return { type: rpcCode, rpcCode, ...withMessage };
  }
  if (typeof e?.code === 'number') {
    // A wire error shaped by another library (`code` is the JSON-RPC code).
    const rpcCode = String(e.code);
    return { type: rpcCode, rpcCode, ...withMessage };
  }
  if (typeof e?.code === 'string' && e.code.length > 0 && e.code.length <= 64)
    return { type: e.code, ...withMessage };
  return { type: '_OTHER', ...withMessage };
}

function isToolError(method: string, result: unknown): boolean {
  return (
    method === 'tools/call' &&
    typeof result === 'object' &&
    result !== null &&
    (result as { isError?: unknown }).isError === true
  );
}

function stringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** A span the host opened for a tool execution (an agent framework's `execute_tool`). */
function activeExecuteToolSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  // Only an SDK span shows its attributes: the API has no getter, so a span we cannot
  // read is not taken for a tool span ("reliably detect", as the conventions say).
  const attributes = (span as unknown as { attributes?: Attributes }).attributes;
  return attributes?.[McpAttr.OperationName] === 'execute_tool' &&
    attributes[McpAttr.MethodName] === undefined
    ? span
    : undefined;
}

class Recorder {
  readonly tracer: Tracer;
  readonly clientDuration: Histogram;
  readonly serverDuration: Histogram;

  constructor(readonly options: McpOtelOptions) {
    this.tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(NAME, VERSION);
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(NAME, VERSION);
    const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
    this.clientDuration = meter.createHistogram(McpMetric.ClientOperationDuration, {
      description: 'Duration of MCP requests as the client observes them',
      unit: 's',
      advice,
    });
    this.serverDuration = meter.createHistogram(McpMetric.ServerOperationDuration, {
      description: 'Duration of MCP requests as the server handles them',
      unit: 's',
      advice,
    });
  }

  /** Ends the span with what the request came to; `ownSpan`: a span we opened. */
  finish(
    span: Span,
    ownSpan: boolean,
    histogram: Histogram,
    started: number,
    attributes: Attributes,
    method: string,
    outcome: { ok: true; result: unknown } | { ok: false; error: unknown },
  ): void {
    if (outcome.ok) {
      if (isToolError(method, outcome.result)) {
        attributes[McpAttr.ErrorType] = 'tool_error';
        span.setAttribute(McpAttr.ErrorType, 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (method === 'tools/call' && this.options.captureToolResult) {
        const text = stringify(outcome.result);
        if (text !== undefined) span.setAttribute(McpAttr.ToolCallResult, text);
      }
    } else {
      const { type, rpcCode, message } = errorTypeOf(outcome.error);
      attributes[McpAttr.ErrorType] = type;
      span.setAttribute(McpAttr.ErrorType, type);
      if (rpcCode !== undefined) {
        attributes[McpAttr.ResponseStatusCode] = rpcCode;
        span.setAttribute(McpAttr.ResponseStatusCode, rpcCode);
      }
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(message !== undefined ? { message } : {}),
      });
    }
    histogram.record((performance.now() - started) / 1000, metricAttributes(attributes));
    if (ownSpan) span.end();
  }
}

/**
 * The hooks of `@mcpkit/jsonrpc`'s `McpInstrumentation`, in the OpenTelemetry MCP semantic
 * conventions: a CLIENT span per request a client sends and a SERVER span per request a
 * server handles, named `{mcp.method.name} {target}`; the operation duration metrics; the
 * trace context (`traceparent`, `tracestate`, `baggage`, whatever the configured
 * propagators write) in `params._meta` of each request, and read back from it on the
 * server side.
 */
export function createMcpInstrumentation(options: McpOtelOptions = {}): McpInstrumentation {
  let recorder: Recorder | undefined;
  // Created at the first request, so a provider registered after the hooks is used.
  const rec = () => {
    recorder ??= new Recorder(options);
    return recorder;
  };
  const reuse = options.reuseExecuteToolSpan !== false;

  return {
    clientRequest(request, send) {
      const r = rec();
      const { method, params } = request;
      const attributes = requestAttributes(request);
      const started = performance.now();
      const host = reuse && method === 'tools/call' ? activeExecuteToolSpan() : undefined;
      let span: Span;
      let ctx: Context;
      if (host) {
        span = host;
        span.setAttributes(attributes);
        ctx = context.active();
      } else {
        const target = targetOf(method, params);
        span = r.tracer.startSpan(target === undefined ? method : `${method} ${target}`, {
          kind: SpanKind.CLIENT,
          attributes,
        });
        ctx = trace.setSpan(context.active(), span);
      }
      if (
        method === 'tools/call' &&
        options.captureToolArguments &&
        params?.arguments !== undefined
      ) {
        const text = stringify(params.arguments);
        if (text !== undefined) span.setAttribute(McpAttr.ToolCallArguments, text);
      }
      const carrier: Record<string, string> = {};
      propagation.inject(ctx, carrier);
      const traced =
        Object.keys(carrier).length === 0
          ? params
          : { ...params, _meta: { ...(params?._meta as object | undefined), ...carrier } };
      let sent: Promise<unknown>;
      try {
        sent = context.with(ctx, () => send(traced));
      } catch (error) {
        r.finish(span, !host, r.clientDuration, started, attributes, method, { ok: false, error });
        throw error;
      }
      return sent.then(
        (result) => {
          r.finish(span, !host, r.clientDuration, started, attributes, method, {
            ok: true,
            result,
          });
          return result;
        },
        (error: unknown) => {
          r.finish(span, !host, r.clientDuration, started, attributes, method, {
            ok: false,
            error,
          });
          throw error;
        },
      );
    },

    serverRequest(request, handle) {
      const r = rec();
      const { method, params } = request;
      const attributes = requestAttributes(request);
      const started = performance.now();
      const meta = params?._meta;
      const ambient = context.active();
      let parent = ambient;
      const links: Link[] = [];
      if (typeof meta === 'object' && meta !== null) {
        const extracted = propagation.extract(
          ROOT_CONTEXT,
          meta as Record<string, unknown>,
          metaGetter,
        );
        if (trace.getSpanContext(extracted) !== undefined) {
          parent = extracted;
          // The conventions: the caller's context is the parent; the ambient one (an
          // HTTP server span, say) is linked.
          const around = trace.getSpanContext(ambient);
          if (around !== undefined) links.push({ context: around });
        } else {
          parent = propagation.extract(ambient, meta as Record<string, unknown>, metaGetter);
        }
      }
      const target = targetOf(method, params);
      const span = r.tracer.startSpan(
        target === undefined ? method : `${method} ${target}`,
        { kind: SpanKind.SERVER, attributes, links },
        parent,
      );
      if (
        method === 'tools/call' &&
        options.captureToolArguments &&
        params?.arguments !== undefined
      ) {
        const text = stringify(params.arguments);
        if (text !== undefined) span.setAttribute(McpAttr.ToolCallArguments, text);
      }
      const ctx = trace.setSpan(parent, span);
      let result: unknown;
      try {
        result = context.with(ctx, handle);
      } catch (error) {
        r.finish(span, true, r.serverDuration, started, attributes, method, { ok: false, error });
        throw error;
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') {
        r.finish(span, true, r.serverDuration, started, attributes, method, { ok: true, result });
        return result;
      }
      return (result as Promise<unknown>).then(
        (value) => {
          r.finish(span, true, r.serverDuration, started, attributes, method, {
            ok: true,
            result: value,
          });
          return value;
        },
        (error: unknown) => {
          r.finish(span, true, r.serverDuration, started, attributes, method, {
            ok: false,
            error,
          });
          throw error;
        },
      );
    },
  };
}

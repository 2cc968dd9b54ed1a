import type {
  InstrumentedRequest,
  InstrumentedSession,
  JsonRpcId,
  McpInstrumentation,
} from '@mcpkit/jsonrpc';
import {
  type Attributes,
  type Context,
  context,
  createNoopMeter,
  type Histogram,
  type Link,
  type Meter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { AttributeSets, SpanNames } from './attribute-sets.js';
import { McpAttr, McpMetric } from './attributes.js';
import { errorTypeOf } from './error-type.js';
import { instrumentManager } from './manager-instrumentation.js';
import { withSpan } from './span-context.js';

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
/** `ConnectionClosedError`'s code (`@mcpkit/jsonrpc`): the other end closed. */
const CONNECTION_CLOSED = 'MCPKIT_CONNECTION_CLOSED';
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

/**
 * Puts a request's attributes on its span, one `setAttribute` each: the SDK copies them
 * into its own record anyway, so an intermediate object per call would be garbage only.
 */
function setRequestAttributes(span: Span, request: InstrumentedRequest): void {
  const { method, params } = request;
  span.setAttribute(McpAttr.MethodName, method);
  const target = targetOf(method, params);
  if (method === 'tools/call') {
    span.setAttribute(McpAttr.OperationName, 'execute_tool');
    if (target !== undefined) span.setAttribute(McpAttr.ToolName, target);
  } else if (method === 'prompts/get' && target !== undefined) {
    span.setAttribute(McpAttr.PromptName, target);
  } else if (
    method === 'resources/read' ||
    method === 'resources/subscribe' ||
    method === 'resources/unsubscribe'
  ) {
    if (typeof params?.uri === 'string') span.setAttribute(McpAttr.ResourceUri, params.uri);
  }
  if (request.protocolVersion !== undefined)
    span.setAttribute(McpAttr.ProtocolVersion, request.protocolVersion);
  if (request.sessionId !== undefined) span.setAttribute(McpAttr.SessionId, request.sessionId);
  if (request.networkTransport !== undefined)
    span.setAttribute(McpAttr.NetworkTransport, request.networkTransport);
  if (request.requestId !== undefined)
    span.setAttribute(McpAttr.RequestId, String(request.requestId));
  if (request.serverName !== undefined) span.setAttribute(McpAttr.ServerName, request.serverName);
  if (request.serverAddress !== undefined)
    span.setAttribute(McpAttr.ServerAddress, request.serverAddress);
  if (request.serverPort !== undefined) span.setAttribute(McpAttr.ServerPort, request.serverPort);
  if (request.networkProtocolName !== undefined)
    span.setAttribute(McpAttr.NetworkProtocolName, request.networkProtocolName);
  if (request.networkProtocolVersion !== undefined)
    span.setAttribute(McpAttr.NetworkProtocolVersion, request.networkProtocolVersion);
  if (request.clientAddress !== undefined) {
    span.setAttribute(McpAttr.ClientAddress, request.clientAddress);
    if (request.clientPort !== undefined) span.setAttribute(McpAttr.ClientPort, request.clientPort);
  }
}

/** The span options without links, shared (the SDK reads them, never writes). */
const CLIENT_SPAN = { kind: SpanKind.CLIENT } as const;
const SERVER_SPAN = { kind: SpanKind.SERVER } as const;

/**
 * Whether `send` runs inside the request's context (`context.with`). Over stdio nothing
 * below the send can start a span (a pipe write; no HTTP client for an instrumentation to
 * trace), and the trace context reaches the server in `_meta` either way: so a stdio
 * request does not enter the context manager. Over HTTP it does, so that an HTTP client
 * instrumentation's request span is a child of the MCP span (the conventions' example).
 * What entering costs was measured (bench/README.md, "OpenTelemetry rows"): nothing
 * visible in a call; the SDK enters the context for its own exports anyway.
 */
const sendsInContext = (request: InstrumentedRequest): boolean =>
  request.networkTransport !== 'pipe';

/** What `metricAttributes` looks a set up by (refilled per call: one thread, no await). */
const metricKey: unknown[] = new Array(10);

/**
 * The attributes a duration metric keeps (the low-cardinality ones): the same frozen
 * object for the same values, from `sets`, so a record allocates none of ours.
 */
function metricAttributes(
  sets: AttributeSets,
  request: InstrumentedRequest,
  errorType: string | undefined,
  rpcCode: string | undefined,
): Attributes {
  const { method, params } = request;
  const target = targetOf(method, params);
  metricKey[0] = method;
  metricKey[1] = target;
  metricKey[2] = request.protocolVersion;
  metricKey[3] = request.networkTransport;
  metricKey[4] = request.serverAddress;
  metricKey[5] = request.serverPort;
  metricKey[6] = request.networkProtocolName;
  metricKey[7] = request.networkProtocolVersion;
  metricKey[8] = errorType;
  metricKey[9] = rpcCode;
  const found = sets.find(metricKey);
  if (found !== undefined) return found;
  const kept: Attributes = { [McpAttr.MethodName]: method };
  if (method === 'tools/call') {
    kept[McpAttr.OperationName] = 'execute_tool';
    if (target !== undefined) kept[McpAttr.ToolName] = target;
  } else if (target !== undefined) kept[McpAttr.PromptName] = target;
  if (request.protocolVersion !== undefined)
    kept[McpAttr.ProtocolVersion] = request.protocolVersion;
  if (request.networkTransport !== undefined)
    kept[McpAttr.NetworkTransport] = request.networkTransport;
  if (request.serverAddress !== undefined) kept[McpAttr.ServerAddress] = request.serverAddress;
  if (request.serverPort !== undefined) kept[McpAttr.ServerPort] = request.serverPort;
  if (request.networkProtocolName !== undefined)
    kept[McpAttr.NetworkProtocolName] = request.networkProtocolName;
  if (request.networkProtocolVersion !== undefined)
    kept[McpAttr.NetworkProtocolVersion] = request.networkProtocolVersion;
  if (errorType !== undefined) kept[McpAttr.ErrorType] = errorType;
  if (rpcCode !== undefined) kept[McpAttr.ResponseStatusCode] = rpcCode;
  return sets.keep(metricKey, kept);
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
function activeExecuteToolSpan(active: Context): Span | undefined {
  const span = trace.getSpan(active);
  if (!span?.isRecording()) return undefined;
  // Only an SDK span shows its attributes: the API has no getter, so a span we cannot
  // read is not taken for a tool span ("reliably detect", as the conventions say).
  const attributes = (span as unknown as { attributes?: Attributes }).attributes;
  return attributes?.[McpAttr.OperationName] === 'execute_tool' &&
    attributes[McpAttr.MethodName] === undefined
    ? span
    : undefined;
}

/** The delegate of the API's proxy provider when none is registered (its no-op one). */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
/** What every no-op meter provider of this API hands out. */
const NOOP_METER = createNoopMeter();

/** What the hooks record with, for the providers registered when it was made. */
class Recorder {
  /** Absent: no tracer provider (no spans, no context injected or extracted). */
  readonly tracer: Tracer | undefined;
  /** Absent: no meter provider. */
  readonly clientDuration: Histogram | undefined;
  readonly serverDuration: Histogram | undefined;
  readonly clientSessionDuration: Histogram | undefined;
  readonly serverSessionDuration: Histogram | undefined;
  /** The duration metrics' attribute sets, one object per distinct set. */
  readonly metricSets = new AttributeSets();
  readonly spanNames = new SpanNames();

  constructor(
    readonly options: McpOtelOptions,
    tracerProvider: TracerProvider | undefined,
    meter: Meter | undefined,
  ) {
    this.tracer = tracerProvider?.getTracer(NAME, VERSION);
    if (meter === undefined) {
      this.clientDuration = undefined;
      this.serverDuration = undefined;
      this.clientSessionDuration = undefined;
      this.serverSessionDuration = undefined;
      return;
    }
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
    this.clientSessionDuration = meter.createHistogram(McpMetric.ClientSessionDuration, {
      description: 'The duration of the MCP session as observed on the MCP client',
      unit: 's',
      advice,
    });
    this.serverSessionDuration = meter.createHistogram(McpMetric.ServerSessionDuration, {
      description: 'The duration of the MCP session as observed on the MCP server',
      unit: 's',
      advice,
    });
  }

  /**
   * Ends what one request opened: its span (when `own`: one we started; a host's
   * `execute_tool` span is the host's to end) and its duration.
   */
  finish(
    request: InstrumentedRequest,
    span: Span | undefined,
    own: boolean,
    histogram: Histogram | undefined,
    started: number,
    ok: boolean,
    outcome: unknown,
  ): void {
    let errorType: string | undefined;
    let rpcCode: string | undefined;
    let message: string | undefined;
    if (ok) {
      if (isToolError(request.method, outcome)) errorType = 'tool_error';
    } else {
      const e = errorTypeOf(outcome);
      errorType = e.type;
      rpcCode = e.rpcCode;
      message = e.message;
    }
    if (span?.isRecording()) {
      if (errorType !== undefined) {
        span.setAttribute(McpAttr.ErrorType, errorType);
        if (rpcCode !== undefined) span.setAttribute(McpAttr.ResponseStatusCode, rpcCode);
        span.setStatus(
          message !== undefined
            ? { code: SpanStatusCode.ERROR, message }
            : { code: SpanStatusCode.ERROR },
        );
      } else if (ok && request.method === 'tools/call' && this.options.captureToolResult) {
        const text = stringify(outcome);
        if (text !== undefined) span.setAttribute(McpAttr.ToolCallResult, text);
      }
    }
    if (histogram !== undefined)
      histogram.record(
        (performance.now() - started) / 1000,
        metricAttributes(this.metricSets, request, errorType, rpcCode),
      );
    if (own) span?.end();
  }
}

/** What records the request's JSON-RPC id on its span (told each id `send` uses). */
function requestIdSetter(span: Span): (id: JsonRpcId) => void {
  return (id) => {
    if (id !== null) span.setAttribute(McpAttr.RequestId, String(id));
  };
}

/**
 * The parent of a SERVER span and its links. The context in `params._meta` wins (the
 * conventions, SEP-414); without one, the HTTP request's trace headers; without those,
 * the ambient context. The ambient span (an HTTP server span an HTTP instrumentation
 * made) is linked when it is not the parent; so are the HTTP headers' context when
 * `_meta` carried another and no ambient span stands for the HTTP request.
 */
function parentOf(
  ambient: Context,
  meta: unknown,
  headers: Readonly<Record<string, string>> | undefined,
): { parent: Context; links: Link[] | undefined } {
  let fromMeta: Context | undefined;
  if (typeof meta === 'object' && meta !== null) {
    const extracted = propagation.extract(
      ROOT_CONTEXT,
      meta as Record<string, unknown>,
      metaGetter,
    );
    if (trace.getSpanContext(extracted) !== undefined) fromMeta = extracted;
    else if (extracted !== ROOT_CONTEXT && headers === undefined)
      // Baggage without a span context: kept on top of the ambient context.
      return {
        parent: propagation.extract(ambient, meta as Record<string, unknown>, metaGetter),
        links: undefined,
      };
  }
  let fromHeaders: Context | undefined;
  if (headers !== undefined) {
    const extracted = propagation.extract(ROOT_CONTEXT, headers, metaGetter);
    if (trace.getSpanContext(extracted) !== undefined) fromHeaders = extracted;
  }
  const parent = fromMeta ?? fromHeaders;
  if (parent === undefined) return { parent: ambient, links: undefined };
  const around = trace.getSpanContext(ambient);
  if (around !== undefined) return { parent, links: [{ context: around }] };
  const transport =
    fromMeta !== undefined && fromHeaders !== undefined
      ? trace.getSpanContext(fromHeaders)
      : undefined;
  if (transport !== undefined && transport.spanId !== trace.getSpanContext(fromMeta!)!.spanId)
    return { parent, links: [{ context: transport }] };
  return { parent, links: undefined };
}

/** Set by `metaSetter` when the propagator wrote anything (the injection is synchronous). */
let injected = false;
const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set(carrier, key, value) {
    carrier[key] = value;
    injected = true;
  },
};

/** `params` with the trace context of `ctx` in `_meta` (the same object when there is none). */
function inject(
  ctx: Context,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  const meta = Object.assign({}, params?._meta as object | undefined) as Record<string, unknown>;
  injected = false;
  propagation.inject(ctx, meta, metaSetter);
  if (!injected) return params;
  injected = false;
  // Copy, then set `_meta`: a literal spread that adds a key its source lacks takes V8's
  // slow path on Node 20.
  const copy: Record<string, unknown> = Object.assign({}, params);
  copy._meta = meta;
  return copy;
}

function captureArguments(
  options: McpOtelOptions,
  span: Span,
  params: Record<string, unknown> | undefined,
): void {
  if (options.captureToolArguments && params?.arguments !== undefined) {
    const text = stringify(params.arguments);
    if (text !== undefined) span.setAttribute(McpAttr.ToolCallArguments, text);
  }
}

/**
 * The hooks of `@mcpkit/jsonrpc`'s `McpInstrumentation`, in the OpenTelemetry MCP semantic
 * conventions: a CLIENT span per request a client sends and a SERVER span per request a
 * server handles, named `{mcp.method.name} {target}`; the operation duration metrics; the
 * trace context (`traceparent`, `tracestate`, `baggage`, whatever the configured
 * propagators write) in `params._meta` of each request, and read back from it on the
 * server side.
 *
 * Zero cost when off: while neither a tracer provider nor a meter provider is registered
 * (the API alone, no SDK), `enabled()` answers `false` and clients and servers skip the
 * hooks altogether. The providers are looked up per request (two global reads) and what
 * is built for them is kept until they change, so an SDK started after the hooks is used.
 * With an SDK, attributes are built only for a span that records (a sampled one).
 */
export function createMcpInstrumentation(options: McpOtelOptions = {}): McpInstrumentation {
  let seenTracer: unknown = null;
  let seenMeter: unknown = null;
  let recorder: Recorder | undefined;
  const current = (): Recorder | undefined => {
    const tp = options.tracerProvider ?? trace.getTracerProvider();
    const delegate =
      typeof (tp as Partial<ProxyTracerProvider>).getDelegate === 'function'
        ? (tp as ProxyTracerProvider).getDelegate()
        : tp;
    const mp = options.meterProvider ?? metrics.getMeterProvider();
    if (delegate !== seenTracer || mp !== seenMeter) {
      seenTracer = delegate;
      seenMeter = mp;
      const tracing = delegate !== NOOP_TRACER_PROVIDER ? delegate : undefined;
      const meter = mp.getMeter(NAME, VERSION);
      const metering = meter !== NOOP_METER ? meter : undefined;
      recorder =
        tracing === undefined && metering === undefined
          ? undefined
          : new Recorder(options, tracing, metering);
    }
    return recorder;
  };
  const reuse = options.reuseExecuteToolSpan !== false;

  return {
    enabled: () => current() !== undefined,

    clientRequest(request, send) {
      const r = current();
      if (r === undefined) return send(request.params);
      const { method, params } = request;
      const started = r.clientDuration !== undefined ? performance.now() : 0;
      let span: Span | undefined;
      let own = false;
      let sent: Promise<unknown>;
      try {
        if (r.tracer === undefined) {
          sent = send(params);
        } else {
          const parent = context.active();
          const host = reuse && method === 'tools/call' ? activeExecuteToolSpan(parent) : undefined;
          let ctx: Context;
          if (host !== undefined) {
            span = host;
            ctx = parent;
          } else {
            span = r.tracer.startSpan(
              r.spanNames.of(method, targetOf(method, params)),
              CLIENT_SPAN,
              parent,
            );
            own = true;
            ctx = withSpan(parent, span);
          }
          const recording = span.isRecording();
          if (recording) {
            setRequestAttributes(span, request);
            if (method === 'tools/call') captureArguments(options, span, params);
          }
          const traced = inject(ctx, params);
          const onid = recording ? requestIdSetter(span) : undefined;
          sent = sendsInContext(request)
            ? context.with(ctx, send, undefined, traced, onid)
            : send(traced, onid);
        }
      } catch (error) {
        r.finish(request, span, own, r.clientDuration, started, false, error);
        throw error;
      }
      return sent.then(
        (result) => {
          r.finish(request, span, own, r.clientDuration, started, true, result);
          return result;
        },
        (error: unknown) => {
          r.finish(request, span, own, r.clientDuration, started, false, error);
          throw error;
        },
      );
    },

    serverRequest(request, handle) {
      const r = current();
      if (r === undefined) return handle();
      const { method, params } = request;
      const started = r.serverDuration !== undefined ? performance.now() : 0;
      let span: Span | undefined;
      let result: unknown;
      try {
        if (r.tracer === undefined) {
          result = handle();
        } else {
          const ambient = context.active();
          const { parent, links } = parentOf(ambient, params?._meta, request.traceHeaders);
          span = r.tracer.startSpan(
            r.spanNames.of(method, targetOf(method, params)),
            links === undefined ? SERVER_SPAN : { kind: SpanKind.SERVER, links },
            parent,
          );
          if (span.isRecording()) {
            setRequestAttributes(span, request);
            if (method === 'tools/call') captureArguments(options, span, params);
          }
          result = context.with(withSpan(parent, span), handle);
        }
      } catch (error) {
        r.finish(request, span, true, r.serverDuration, started, false, error);
        throw error;
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then !== 'function') {
        r.finish(request, span, true, r.serverDuration, started, true, result);
        return result;
      }
      return (result as Promise<unknown>).then(
        (value) => {
          r.finish(request, span, true, r.serverDuration, started, true, value);
          return value;
        },
        (error: unknown) => {
          r.finish(request, span, true, r.serverDuration, started, false, error);
          throw error;
        },
      );
    },

    clientNotification(request, send) {
      const r = current();
      if (r === undefined) return send(request.params);
      const started = r.clientDuration !== undefined ? performance.now() : 0;
      let span: Span | undefined;
      let sent: Promise<void>;
      try {
        if (r.tracer === undefined) {
          sent = send(request.params);
        } else {
          const parent = context.active();
          span = r.tracer.startSpan(request.method, CLIENT_SPAN, parent);
          if (span.isRecording()) setRequestAttributes(span, request);
          const ctx = withSpan(parent, span);
          const traced = inject(ctx, request.params);
          sent = sendsInContext(request)
            ? context.with(ctx, send, undefined, traced)
            : send(traced);
        }
      } catch (error) {
        r.finish(request, span, true, r.clientDuration, started, false, error);
        throw error;
      }
      return sent.then(
        () => r.finish(request, span, true, r.clientDuration, started, true, undefined),
        (error: unknown) => {
          r.finish(request, span, true, r.clientDuration, started, false, error);
          throw error;
        },
      );
    },

    observeManager(manager, transportOf) {
      return instrumentManager(manager, {
        ...(options.tracerProvider !== undefined ? { tracerProvider: options.tracerProvider } : {}),
        ...(options.meterProvider !== undefined ? { meterProvider: options.meterProvider } : {}),
        transportOf,
      });
    },

    sessionStart(side) {
      const r = current();
      const histogram = side === 'client' ? r?.clientSessionDuration : r?.serverSessionDuration;
      if (histogram === undefined) return undefined;
      const started = performance.now();
      return (session: InstrumentedSession, error?: unknown) => {
        // A server's session ends when its client closes the connection: not an error.
        const failed =
          error !== undefined &&
          error !== null &&
          !(side === 'server' && (error as { code?: unknown }).code === CONNECTION_CLOSED);
        histogram.record(
          (performance.now() - started) / 1000,
          sessionAttributes(session, failed ? error : undefined),
        );
      };
    },
  };
}

/** The attributes of a session duration: version, transport, server, `error.type` when it ended badly. */
function sessionAttributes(session: InstrumentedSession, error: unknown): Attributes {
  const kept: Attributes = {};
  if (session.protocolVersion !== undefined)
    kept[McpAttr.ProtocolVersion] = session.protocolVersion;
  if (session.networkTransport !== undefined)
    kept[McpAttr.NetworkTransport] = session.networkTransport;
  if (session.serverAddress !== undefined) kept[McpAttr.ServerAddress] = session.serverAddress;
  if (session.serverPort !== undefined) kept[McpAttr.ServerPort] = session.serverPort;
  if (session.networkProtocolName !== undefined)
    kept[McpAttr.NetworkProtocolName] = session.networkProtocolName;
  if (session.networkProtocolVersion !== undefined)
    kept[McpAttr.NetworkProtocolVersion] = session.networkProtocolVersion;
  if (error !== undefined && error !== null) kept[McpAttr.ErrorType] = errorTypeOf(error).type;
  return kept;
}

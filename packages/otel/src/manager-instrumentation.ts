import type { ObservedManager } from '@mcpkit/jsonrpc';
import {
  type Attributes,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { McpAttr, McpMetric } from './attributes.js';
import { errorTypeOf } from './error-type.js';

export interface ManagerOtelOptions {
  tracerProvider?: TracerProvider;
  meterProvider?: MeterProvider;
  /** `network.transport` or the config type of a server, for the attempt spans. */
  transportOf?: (server: string) => string | undefined;
}

const NAME = '@mcpkit/otel';
const VERSION = '0.1.0';
const STATES = ['connected', 'failed', 'needs-auth', 'pending', 'disabled'] as const;

/**
 * Traces an `McpManager`: an INTERNAL span `connect {server}` per connection attempt (from
 * the server turning pending to the state it settles in: server, transport, attempt number,
 * outcome state, `error.type` when it failed), a span event per state change, and the
 * observable gauge `mcpkit.manager.servers` (servers by state). Built on the manager's
 * public events, so the manager itself carries no tracing code. Returns the function that
 * stops it (open attempt spans are ended).
 */
export function instrumentManager(
  manager: ObservedManager,
  options: ManagerOtelOptions = {},
): () => void {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(NAME, VERSION);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(NAME, VERSION);
  const attempts = new Map<string, { span: Span; number: number; retry: number }>();
  const counts = new Map<string, number>();

  const off = manager.on('statechange', ({ name, state, previous, reason }) => {
    const event: Attributes = {
      [McpAttr.ServerName]: name,
      [McpAttr.ConnectionState]: state.state,
      [McpAttr.ConnectionReason]: reason,
      ...(previous ? { [McpAttr.ConnectionPreviousState]: previous.state } : {}),
    };
    let open = attempts.get(name);
    const retry = state.reconnectAttempt ?? 0;
    if (state.state === 'pending' && open !== undefined && open.retry !== retry) {
      // The next reconnect attempt began while this one was pending: it ends here.
      open.span.setAttribute(McpAttr.ConnectionState, 'pending');
      open.span.end();
      attempts.delete(name);
      open = undefined;
    }
    if (state.state === 'pending' && open === undefined) {
      const number = (counts.get(name) ?? 0) + 1;
      counts.set(name, number);
      const transport = options.transportOf?.(name);
      const span = tracer.startSpan(`connect ${name}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          [McpAttr.ServerName]: name,
          [McpAttr.ConnectionAttempt]: number,
          ...(transport !== undefined ? { [McpAttr.NetworkTransport]: transport } : {}),
        },
      });
      open = { span, number, retry };
      attempts.set(name, open);
    }
    if (open) {
      open.span.addEvent('mcpkit.manager.state_change', event);
      if (state.state === 'pending' && state.nextRetryAt !== undefined)
        open.span.addEvent('mcpkit.manager.reconnect', {
          [McpAttr.ServerName]: name,
          [McpAttr.ReconnectAttempt]: retry,
          [McpAttr.ReconnectDelay]: Math.max(0, state.nextRetryAt - Date.now()),
          [McpAttr.ConnectionReason]: state.reason ?? reason,
        });
      if (state.state !== 'pending') {
        open.span.setAttribute(McpAttr.ConnectionState, state.state);
        if (state.state === 'failed' || state.state === 'needs-auth') {
          const { type, message } = errorTypeOf(state.error);
          open.span.setAttribute(
            McpAttr.ErrorType,
            state.state === 'needs-auth' ? 'needs_auth' : type,
          );
          open.span.setStatus({
            code: SpanStatusCode.ERROR,
            ...(message !== undefined ? { message } : {}),
          });
        }
        open.span.end();
        attempts.delete(name);
      }
    } else {
      // A change outside an attempt (a crash, a disable): a span of its own carries it.
      tracer
        .startSpan(`state ${name}`, { kind: SpanKind.INTERNAL, attributes: event })
        .addEvent('mcpkit.manager.state_change', event)
        .end();
    }
  });

  const gauge = meter.createObservableGauge(McpMetric.ManagerServers, {
    description: 'Servers of the manager by connection state',
    unit: '{server}',
  });
  const observe = (result: { observe(value: number, attributes?: Attributes): void }) => {
    const byState = new Map<string, number>(STATES.map((s) => [s, 0]));
    for (const s of manager.snapshot().servers)
      byState.set(s.state, (byState.get(s.state) ?? 0) + 1);
    for (const [state, n] of byState) result.observe(n, { [McpAttr.ConnectionState]: state });
  };
  gauge.addCallback(observe);

  return () => {
    off();
    gauge.removeCallback(observe);
    for (const { span } of attempts.values()) span.end();
    attempts.clear();
  };
}

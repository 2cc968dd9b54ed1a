import {
  type Context,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  trace,
} from '@opentelemetry/api';

/**
 * The key `trace.setSpan` keeps a span under. `@opentelemetry/api` makes its context keys
 * with `Symbol.for` so that every copy of the API shares them; whether this copy still
 * does is checked once below, and `withSpan` falls back to `trace.setSpan` if not.
 */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * `parent` with `span` as its active span, as `trace.setSpan(parent, span)` answers, without
 * copying the parent: the API's context copies its whole map (and makes three closures)
 * per call, where the hooks only hand the context to the propagator and, over HTTP, to
 * `context.with`. Reads fall through to the parent; a write makes the API's own context.
 */
class SpanOnContext implements Context {
  constructor(
    private readonly parent: Context,
    private readonly span: Span,
  ) {}

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.span : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return trace.setSpan(this.parent, this.span).setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return trace.setSpan(this.parent, this.span).deleteValue(key);
  }
}

const probe = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
const keyHolds = trace.getSpan(new SpanOnContext(ROOT_CONTEXT, probe)) === probe;

/** `trace.setSpan(parent, span)`, one small object per call. */
export const withSpan: (parent: Context, span: Span) => Context = keyHolds
  ? (parent, span) => new SpanOnContext(parent, span)
  : (parent, span) => trace.setSpan(parent, span);

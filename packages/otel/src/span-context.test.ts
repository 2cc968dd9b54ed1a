import {
  createContextKey,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { withSpan } from './span-context.js';

const spanContext: SpanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
};

describe('withSpan', () => {
  const other = createContextKey('mcpkit test key');
  const parent = ROOT_CONTEXT.setValue(other, 'kept');
  const span = trace.wrapSpanContext(spanContext);

  it('answers as trace.setSpan does: the span, and every value of the parent', () => {
    const ctx = withSpan(parent, span);
    expect(trace.getSpan(ctx)).toBe(span);
    expect(trace.getSpanContext(ctx)).toEqual(spanContext);
    expect(ctx.getValue(other)).toBe('kept');
  });

  it('a write gives a new context with the span and the value; the original is unchanged', () => {
    const ctx = withSpan(parent, span);
    const key = createContextKey('mcpkit test written');
    const written = ctx.setValue(key, 1);
    expect(written.getValue(key)).toBe(1);
    expect(trace.getSpan(written)).toBe(span);
    expect(written.getValue(other)).toBe('kept');
    expect(ctx.getValue(key)).toBeUndefined();
  });

  it('deleting the span (a root span requested under it) leaves the parent values', () => {
    const ctx = withSpan(parent, span);
    const rooted = trace.deleteSpan(ctx);
    expect(trace.getSpan(rooted)).toBeUndefined();
    expect(rooted.getValue(other)).toBe('kept');
    expect(trace.getSpan(ctx)).toBe(span);
  });

  it('a span set on a parent that had one replaces it', () => {
    const outer = trace.wrapSpanContext({ ...spanContext, spanId: '00f067aa0ba902b7' });
    const ctx = withSpan(trace.setSpan(ROOT_CONTEXT, outer), span);
    expect(trace.getSpan(ctx)).toBe(span);
  });
});

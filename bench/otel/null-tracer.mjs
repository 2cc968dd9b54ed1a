// A tracer provider whose spans record (so the @mcpkit/otel hooks do all their work:
// attributes, request id, status, traceparent into _meta) but keep nothing: what the hooks
// cost a real call apart from the SDK's own spans and processor. With the AsyncLocalStorage
// context manager (as the SDK modes) unless `contextManager: false`.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

let next = 0;
const hex = (n, width) => n.toString(16).padStart(width, '0');

function nullSpan() {
  next++;
  const spanContext = { traceId: hex(next, 32), spanId: hex(next, 16), traceFlags: 1 };
  const span = {
    spanContext: () => spanContext,
    isRecording: () => true,
    setAttribute: () => span,
    setAttributes: () => span,
    setStatus: () => span,
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    updateName: () => span,
    recordException: () => {},
    end: () => {},
  };
  return span;
}

const tracer = {
  startSpan: nullSpan,
  startActiveSpan: (name, ...rest) => rest.at(-1)(nullSpan(name)),
};

export function registerNullTracer({ contextManager = true } = {}) {
  if (contextManager)
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  return { shutdown: async () => {} };
}

import type { IncomingHttpHeaders } from 'node:http';

/** A header value longer than this is not trace context (W3C caps them far lower). */
const MAX_VALUE = 8192;

/**
 * The W3C trace context headers among an HTTP request's headers (`traceparent`, `tracestate`,
 * `baggage`), when it carries a `traceparent`: what the server's instrumentation falls
 * back to when a message's `params._meta` carries no context. Nothing is built otherwise.
 */
export function traceHeadersOf(
  requestHeaders: IncomingHttpHeaders,
): Record<string, string> | undefined {
  const { traceparent, tracestate, baggage } = requestHeaders;
  if (typeof traceparent !== 'string' || traceparent.length > MAX_VALUE) return undefined;
  const headers: Record<string, string> = { traceparent };
  if (typeof tracestate === 'string' && tracestate.length <= MAX_VALUE)
    headers.tracestate = tracestate;
  if (typeof baggage === 'string' && baggage.length <= MAX_VALUE) headers.baggage = baggage;
  return headers;
}

import type { JsonRpcMessage } from '@mcpkit/jsonrpc';

/** The W3C trace context keys an instrumentation puts in `params._meta`. */
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;
/** Longer is not trace context (W3C caps these far lower); not copied into a header. */
const MAX_VALUE = 8192;
/** What a header value may hold: visible ASCII and spaces (anything else breaks the request). */
const HEADER_SAFE = /^[\x20-\x7e]*$/;

/**
 * For a request whose `params._meta` carries W3C trace context (an instrumentation put it
 * there), the same `traceparent`/`tracestate`/`baggage` as HTTP headers, so HTTP-level
 * tracing (a proxy, an HTTP server instrumentation) continues the trace too; `_meta` stays
 * the MCP carrier. A value a header cannot hold is left out. Nothing for anything else.
 */
export function traceHeadersOf(message: JsonRpcMessage): Record<string, string> | undefined {
  if (!('method' in message)) return undefined;
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  let out: Record<string, string> | undefined;
  for (const key of TRACE_KEYS) {
    const value = Object.hasOwn(meta, key) ? (meta as Record<string, unknown>)[key] : undefined;
    if (typeof value !== 'string' || value.length > MAX_VALUE || !HEADER_SAFE.test(value)) continue;
    out ??= {};
    out[key] = value;
  }
  return out;
}

import type { StreamRetryPolicy } from '@mcpkit/jsonrpc';

// The policy's type, its checks and the back-off are @mcpkit/jsonrpc's, shared with the SSE
// transport; this package keeps its defaults and re-exports them for its users.
export { type StreamRetryPolicy, streamRetryDelay } from '@mcpkit/jsonrpc';
export { checkStreamRetryPolicy } from '@mcpkit/jsonrpc/internal';

/** How a dropped stream is re-opened. */
export const streamRetryDefaults: Readonly<StreamRetryPolicy> = Object.freeze({
  initialDelayMs: 500,
  growthFactor: 2,
  maxDelayMs: 30_000,
  /** Attempts per drop before giving up. */
  maxAttempts: 5,
});

export interface ReconnectEvent {
  /** Which stream: the standalone GET stream, or the response stream of a request. */
  stream: 'standalone' | 'response';
  attempt: number;
  delayMs: number;
  /** Why the stream ended. */
  reason: string;
  lastEventId: string | undefined;
}

/** Stands in for a stream that could not be re-opened: the next attempt follows. */
export async function* emptyStream(): AsyncIterable<Buffer> {}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** The server is not there at all: waiting for more attempts is pointless. */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return UNREACHABLE.has(e?.code ?? '') || UNREACHABLE.has(e?.cause?.code ?? '');
}

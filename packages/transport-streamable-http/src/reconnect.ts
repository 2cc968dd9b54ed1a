import { checkCount, checkFinite, checkTimerMs } from '@mcpkit/jsonrpc';

export interface ReconnectPolicy {
  initialDelayMs: number;
  growthFactor: number;
  maxDelayMs: number;
  /** Consecutive attempts without a message in between. */
  maxAttempts: number;
}

/** How a dropped stream is re-opened. */
export const reconnectDefaults: Readonly<ReconnectPolicy> = Object.freeze({
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

/**
 * Checks a policy's numbers (a `TypeError` naming the option and its range) and returns it.
 * `0` attempts means a dropped stream is not re-opened.
 */
export function checkReconnectPolicy(owner: string, policy: ReconnectPolicy): ReconnectPolicy {
  checkTimerMs(owner, 'reconnect.initialDelayMs', policy.initialDelayMs, { zero: true });
  checkFinite(owner, 'reconnect.growthFactor', policy.growthFactor, 1, 1000);
  checkTimerMs(owner, 'reconnect.maxDelayMs', policy.maxDelayMs, { zero: true });
  checkCount(owner, 'reconnect.maxAttempts', policy.maxAttempts, { min: 0, max: 1000 });
  return policy;
}

/**
 * The wait before attempt `attempt` (1-based). A server's `retry` wins when it sent one,
 * but never past `maxDelayMs`: the server does not get to park us for days.
 */
export function reconnectDelay(
  policy: ReconnectPolicy,
  attempt: number,
  serverRetryMs: number | undefined,
): number {
  if (serverRetryMs !== undefined) return Math.min(serverRetryMs, policy.maxDelayMs);
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.growthFactor ** (attempt - 1));
}

/** Waits `ms`, or less when `signal` aborts (never rejects). */
export const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

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

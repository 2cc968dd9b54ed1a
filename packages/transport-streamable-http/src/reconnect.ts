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

/** The wait before attempt `attempt` (1-based); a server's `retry` wins when it sent one. */
export function reconnectDelay(
  policy: ReconnectPolicy,
  attempt: number,
  serverRetryMs: number | undefined,
): number {
  if (serverRetryMs !== undefined) return serverRetryMs;
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.growthFactor ** (attempt - 1));
}

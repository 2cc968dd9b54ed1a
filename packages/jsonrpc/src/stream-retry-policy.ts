import { checkCount, checkFinite, checkTimerMs } from './option-checks.js';

/** How a transport re-opens a stream that dropped (each transport has its own defaults). */
export interface StreamRetryPolicy {
  initialDelayMs: number;
  growthFactor: number;
  maxDelayMs: number;
  /** Consecutive attempts without a message in between; 0: a drop is not retried. */
  maxAttempts: number;
}

/**
 * Checks a policy's numbers (a `TypeError` naming the option and its range) and returns it.
 * `0` attempts means a dropped stream is not re-opened.
 */
export function checkStreamRetryPolicy(
  owner: string,
  policy: StreamRetryPolicy,
): StreamRetryPolicy {
  checkTimerMs(owner, 'reconnect.initialDelayMs', policy.initialDelayMs, { zero: true });
  checkFinite(owner, 'reconnect.growthFactor', policy.growthFactor, 1, 1000);
  checkTimerMs(owner, 'reconnect.maxDelayMs', policy.maxDelayMs, { zero: true });
  checkCount(owner, 'reconnect.maxAttempts', policy.maxAttempts, { min: 0, max: 1000 });
  return policy;
}

/**
 * The wait before attempt `attempt` (1-based): exponential back-off capped at `maxDelayMs`.
 * A server's SSE `retry` wins when it sent one, but never past `maxDelayMs`: the server does
 * not get to park us for days.
 */
export function streamRetryDelay(
  policy: StreamRetryPolicy,
  attempt: number,
  serverRetryMs?: number,
): number {
  if (serverRetryMs !== undefined) return Math.min(serverRetryMs, policy.maxDelayMs);
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.growthFactor ** (attempt - 1));
}

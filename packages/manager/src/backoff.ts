import type { Clock } from './clock.js';

/**
 * When a dropped server is retried. Fast phase: 1 s doubling to 30 s, 5 attempts. Then,
 * unlike hosts that give a server up for good after ~30 s, a slow phase: 60 s doubling to
 * 300 s, for as long as the manager lives. Jitter spreads servers that dropped together.
 */
export const reconnectDefaults = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  fastAttempts: 5,
  slowInitialDelayMs: 60_000,
  slowMaxDelayMs: 300_000,
  /** ± this fraction of each delay. */
  jitter: 0.2,
  /** Connected this long: the attempt counter starts again from 0. */
  resetAfterMs: 5 * 60_000,
  /**
   * Remote servers that refuse connections: how often a TCP check looks for the port to
   * open again during the fast phase (0: never), to reconnect as soon as it does.
   */
  reachabilityProbeMs: 250,
});

export type ReconnectPolicy = { -readonly [K in keyof typeof reconnectDefaults]: number };

/** The delay before attempt `attempt` (1-based). */
export function reconnectDelay(
  attempt: number,
  policy: ReconnectPolicy = reconnectDefaults,
  random: () => number = Math.random,
): number {
  const base =
    attempt <= policy.fastAttempts
      ? Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs)
      : Math.min(
          policy.slowInitialDelayMs * 2 ** (attempt - policy.fastAttempts - 1),
          policy.slowMaxDelayMs,
        );
  const spread = base * policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(base + spread));
}

/**
 * The stdio crash-loop breaker: a server that dies within `earlyMs` of starting more than
 * `maxStarts` times in `windowMs` is held until someone calls `reconnect()` — one bad
 * server must not spawn thousands of processes.
 */
export const crashLoopDefaults = Object.freeze({
  earlyMs: 10_000,
  maxStarts: 5,
  windowMs: 60_000,
});

export type CrashLoopPolicy = { -readonly [K in keyof typeof crashLoopDefaults]: number };

export class CrashLoopBreaker {
  private readonly earlyExits: number[] = [];

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly policy: CrashLoopPolicy = crashLoopDefaults,
  ) {}

  /** Records an exit of a process started at `startedAt`; true when the breaker trips. */
  recordExit(startedAt: number): boolean {
    const now = this.clock.now();
    if (now - startedAt > this.policy.earlyMs) return false;
    this.earlyExits.push(now);
    while (this.earlyExits.length > 0 && now - this.earlyExits[0]! > this.policy.windowMs)
      this.earlyExits.shift();
    return this.earlyExits.length >= this.policy.maxStarts;
  }

  get recentEarlyExits(): number {
    return this.earlyExits.length;
  }

  reset(): void {
    this.earlyExits.length = 0;
  }
}

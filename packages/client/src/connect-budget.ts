import { TimeoutError } from '@mcpkit/jsonrpc';

/**
 * One time budget for the whole of `connect()`: the `server/discover` probe, the
 * `initialize` handshake and any retry between them. The probe keeps its own, shorter
 * limit, and never takes more than half of what is left, so that a handshake-era server
 * that ignores the probe still has time to answer `initialize`.
 */
export class ConnectBudget {
  private readonly startedAt = performance.now();
  /** What each step spent, for the message when the budget runs out. */
  private readonly steps: string[] = [];

  constructor(
    readonly totalMs: number,
    private readonly label: string,
  ) {}

  spentMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  remainingMs(): number {
    return Math.max(0, this.totalMs - (performance.now() - this.startedAt));
  }

  /** The probe's limit: its own, at most half of what is left (all of it when required). */
  probeMs(ownMs: number, required: boolean): number {
    const left = this.remainingMs();
    return Math.max(1, Math.ceil(Math.min(ownMs, required ? left : left / 2)));
  }

  /** The limit of the next handshake step; throws when nothing is left. */
  stepMs(method: string): number {
    const left = Math.ceil(this.remainingMs());
    if (left <= 0) throw this.expired(method);
    return left;
  }

  note(step: string): void {
    this.steps.push(step);
  }

  /** A step's timeout, restated as the budget that was really spent. */
  expired(method: string, cause?: unknown): TimeoutError {
    const steps = this.steps.length ? ` (${this.steps.join('; ')})` : '';
    return new TimeoutError(
      `${this.label}: connecting took the whole ${this.totalMs} ms connect budget (${this.spentMs()} ms spent, waiting for "${method}")${steps}; check that the server starts and answers, or raise the connect timeout`,
      this.totalMs,
      cause === undefined ? undefined : { cause },
    );
  }
}

/** What each step of `connect()` is given: the shared budget and the caller's signal. */
export interface ConnectSteps {
  budget: ConnectBudget;
  signal?: AbortSignal;
}

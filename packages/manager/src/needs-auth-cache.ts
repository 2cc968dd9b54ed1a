import type { Clock } from './clock.js';
import type { NeedsAuthState } from './state.js';

/**
 * Recent needs-auth verdicts, per server: such a server is shown as `needs-auth` again at
 * connect without asking it, until its verdict runs out (default 15 min), a sign-in or a
 * `reconnect()` forgets it.
 */
export class NeedsAuthCache {
  private readonly verdicts = new Map<string, { until: number; state: NeedsAuthState }>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly ttlMs: number,
  ) {}

  remember(state: NeedsAuthState): void {
    this.verdicts.set(state.name, { until: this.clock.now() + this.ttlMs, state });
  }

  /** The verdict while it holds. */
  recent(name: string): NeedsAuthState | undefined {
    const cached = this.verdicts.get(name);
    return cached && cached.until > this.clock.now() ? cached.state : undefined;
  }

  forget(name: string): void {
    this.verdicts.delete(name);
  }
}

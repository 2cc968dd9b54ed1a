import type { Clock } from './clock.js';

/**
 * At most `max` events per key in `windowMs`: a server that writes garbage in a loop must
 * not flood the host's log (a complaint seen in other hosts: hundreds of thousands of
 * lines). `allow` says whether to pass an event, and once per window whether this is the
 * first one dropped (so the host is told that more were suppressed).
 */
export class RateLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly max = 20,
    private readonly windowMs = 60_000,
  ) {}

  allow(key: string): 'pass' | 'first-dropped' | 'drop' {
    const now = this.clock.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count <= this.max) return 'pass';
    return w.count === this.max + 1 ? 'first-dropped' : 'drop';
  }
}

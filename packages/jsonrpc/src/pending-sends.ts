const noop = (): void => {};

/**
 * Messages still being sent, for a transport whose `close()` lets them finish before it
 * aborts them (bounded): over HTTP each message is a request of its own, and a
 * `notifications/cancelled` sent just before closing would otherwise never arrive.
 */
export class PendingSends {
  private readonly sends = new Set<Promise<void>>();

  /** Follows `sent` until it settles (its outcome stays the sender's). */
  track(sent: Promise<unknown>): void {
    const settled = sent.then(noop, noop);
    this.sends.add(settled);
    void settled.then(() => this.sends.delete(settled));
  }

  /**
   * Waits one turn of the event loop (the abort that led to the close may still be running
   * its listeners, each of which may send), then for the tracked sends, up to `waitMs`.
   */
  async flush(waitMs: number): Promise<void> {
    if (waitMs <= 0) return;
    await new Promise((resolve) => setImmediate(resolve));
    if (this.sends.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(this.sends),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }
}

/** How long a transport's `close()` waits for messages still being sent, by default. */
export const DEFAULT_CLOSE_FLUSH_MS = 2_000;

/**
 * A counting semaphore: at most `limit` tasks run at once, and a slot frees the moment its
 * task settles (no batch barrier). Every connect of a kind — first, late, reload,
 * reconnect — goes through the same pool. It is the manager's one concurrency limiter.
 * A limit below 1 counts as 1 (0 would queue every task forever).
 */
export class Pool {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  readonly limit: number;

  constructor(limit: number) {
    this.limit = Math.max(1, Math.floor(limit) || 1);
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.queue.shift()?.();
    }
  }

  get active(): number {
    return this.running;
  }
}

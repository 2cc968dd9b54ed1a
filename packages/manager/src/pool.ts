/**
 * A counting semaphore: at most `limit` tasks run at once, and a slot frees the moment its
 * task settles (no batch barrier). Every connect of a kind — first, late, reload,
 * reconnect — goes through the same pool.
 */
export class Pool {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(public limit: number) {}

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

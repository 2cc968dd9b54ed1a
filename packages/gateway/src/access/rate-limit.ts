/** Where the token buckets live: in memory in one process; a shared store for replicas. */
export interface BucketStore {
  /**
   * Takes one token from `key`'s bucket (`rate` tokens a second, at most `burst`): `0` when
   * taken, else how many ms until one is there.
   */
  take(key: string, rate: number, burst: number, now: number): number | Promise<number>;
}

/** The most buckets kept; the least recently used goes first (a full bucket loses nothing). */
const MAX_BUCKETS = 100_000;

/** Token buckets in this process's memory. */
export class MemoryBucketStore implements BucketStore {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** The key taken last: its bucket is the newest already (no delete and set to move it). */
  private last: string | undefined;

  take(key: string, rate: number, burst: number, now: number): number {
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
      bucket.at = now;
      // Kept newest last (Map order): the eviction below takes the least recently used.
      if (key !== this.last) {
        this.buckets.delete(key);
        this.buckets.set(key, bucket);
      }
    } else {
      bucket = { tokens: burst, at: now };
      if (this.buckets.size >= MAX_BUCKETS) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
      this.buckets.set(key, bucket);
    }
    this.last = key;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - bucket.tokens) / rate) * 1000);
  }
}

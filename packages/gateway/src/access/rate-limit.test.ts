import { describe, expect, it } from 'vitest';
import { MemoryBucketStore } from './rate-limit.js';

describe('MemoryBucketStore', () => {
  it('at 100 000 buckets, a new key evicts the least recently taken one (a caller taking twice in a row stays the newest)', () => {
    const store = new MemoryBucketStore();
    // burst 1, and a rate too slow to refill within the test: a kept bucket stays empty.
    const take = (key: string) => store.take(key, 0.001, 1, 1000);
    expect(take('a')).toBe(0);
    expect(take('a')).toBeGreaterThan(0);
    for (let i = 0; i < 99_999; i++) take(`k${i}`);
    // The oldest is "a" now; taking it makes it the newest again (k0 the oldest).
    expect(take('a')).toBeGreaterThan(0);
    expect(take('new')).toBe(0);
    // k0 went (a fresh bucket: full again); "a" was kept (still empty).
    expect(take('a')).toBeGreaterThan(0);
    expect(take('k0')).toBe(0);
    // Taking k0 again made room by evicting k1, the oldest then.
    expect(take('k1')).toBe(0);
    expect(take('k2')).toBe(0);
  });
});

import { describe, expect, test } from 'vitest';
import { CrashLoopBreaker, reconnectDefaults, reconnectDelay } from './backoff.js';

/** A fake clock: time moves only when the test says so. */
function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('reconnect backoff', () => {
  test('fast phase: 1 s doubling to 30 s for 5 attempts, then a slow phase from 60 s to 300 s that never ends', () => {
    const mid = () => 0.5; // no jitter
    const delays = Array.from({ length: 12 }, (_, i) =>
      reconnectDelay(i + 1, reconnectDefaults, mid),
    );
    expect(delays).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000,
      300_000,
    ]);
    expect(reconnectDelay(1_000, reconnectDefaults, mid)).toBe(300_000);
  });

  test('jitter stays within ±20 %', () => {
    expect(reconnectDelay(3, reconnectDefaults, () => 0)).toBe(3_200);
    expect(reconnectDelay(3, reconnectDefaults, () => 0.999_999)).toBe(4_800);
  });
});

describe('crash-loop breaker (fake clock)', () => {
  test('trips on the 5th exit within 10 s of starting inside a minute', () => {
    const clock = fakeClock();
    const breaker = new CrashLoopBreaker(clock);
    const trips: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const startedAt = clock.now();
      clock.advance(2_000);
      trips.push(breaker.recordExit(startedAt));
    }
    expect(trips).toEqual([false, false, false, false, true]);
  });

  test('exits long after starting do not count; old exits age out of the window', () => {
    const clock = fakeClock();
    const breaker = new CrashLoopBreaker(clock);
    for (let i = 0; i < 10; i++) {
      const startedAt = clock.now();
      clock.advance(11_000);
      expect(breaker.recordExit(startedAt)).toBe(false);
    }
    for (let i = 0; i < 10; i++) {
      clock.advance(16_000);
      // one early exit (1 s after its start) every 16 s: at most 4 in any minute
      expect(breaker.recordExit(clock.now() - 1_000)).toBe(false);
    }
  });

  test('reset() forgets the history (manual reconnect)', () => {
    const clock = fakeClock();
    const breaker = new CrashLoopBreaker(clock);
    for (let i = 0; i < 4; i++) breaker.recordExit(clock.now());
    breaker.reset();
    expect(breaker.recordExit(clock.now())).toBe(false);
    expect(breaker.recentEarlyExits).toBe(1);
  });
});

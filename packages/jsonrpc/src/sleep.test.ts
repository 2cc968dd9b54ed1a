import { describe, expect, it } from 'vitest';
import { isRecord } from './is-record.js';
import { sleep } from './sleep.js';
import { checkStreamRetryPolicy, streamRetryDelay } from './stream-retry-policy.js';

describe('sleep', () => {
  it('resolves after the wait', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });

  it('an abort ends the wait at once with the signal reason', async () => {
    const controller = new AbortController();
    const reason = new Error('closed');
    const waiting = sleep(600_000, controller.signal);
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });

  it('an already aborted signal rejects without waiting', async () => {
    await expect(sleep(600_000, AbortSignal.abort('gone'))).rejects.toBe('gone');
  });
});

describe('the shared reconnect policy', () => {
  const policy = { initialDelayMs: 100, growthFactor: 2, maxDelayMs: 1_000, maxAttempts: 3 };
  it('backs off exponentially up to maxDelayMs; a server retry wins but is capped', () => {
    expect([1, 2, 3, 4, 5].map((n) => streamRetryDelay(policy, n))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
    expect(streamRetryDelay(policy, 1, 50)).toBe(50);
    expect(streamRetryDelay(policy, 1, 86_400_000)).toBe(1_000);
  });
  it('refuses numbers out of range, naming the option', () => {
    expect(() => checkStreamRetryPolicy('T', { ...policy, growthFactor: 0.5 })).toThrow(
      /reconnect\.growthFactor/,
    );
  });
});

describe('isRecord', () => {
  it('is true for plain objects only', () => {
    expect([{}, { a: 1 }, [], null, 'x', 1].map(isRecord)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

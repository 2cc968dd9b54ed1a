import { describe, expect, it } from 'vitest';
import { PendingSends } from './pending-sends.js';

describe('PendingSends', () => {
  it('flush waits for a send started by an abort listener in the same turn, and for sends already going', async () => {
    const pending = new PendingSends();
    const order: string[] = [];
    let finishFirst!: () => void;
    pending.track(
      new Promise<void>((resolve) => (finishFirst = resolve)).then(() => order.push('first')),
    );
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () =>
      setImmediate(() => pending.track(Promise.resolve().then(() => order.push('late')))),
    );
    controller.abort();
    const flushed = pending.flush(60_000).then(() => order.push('flushed'));
    finishFirst();
    await flushed;
    expect(order).toEqual(['first', 'late', 'flushed']);
  });

  it('a send that fails does not fail the flush; 0 does not wait', async () => {
    const pending = new PendingSends();
    const failing = Promise.reject(new Error('refused'));
    failing.catch(() => {});
    pending.track(failing);
    await expect(pending.flush(60_000)).resolves.toBeUndefined();
    pending.track(new Promise(() => {}));
    await expect(pending.flush(0)).resolves.toBeUndefined();
  });
});

import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from './abort-fanout.js';

describe('onAbort', () => {
  it('twenty waiters on one signal add one abort listener (Node warns past ten), each is called once, and the last to leave removes it', () => {
    const controller = new AbortController();
    const called: number[] = [];
    const stops = Array.from({ length: 20 }, (_, i) =>
      onAbort(controller.signal, () => called.push(i)),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stops[3]!();
    controller.abort();
    controller.abort();
    expect(called).toEqual(Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 3));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('the listener leaves with the last waiter, and a new waiter adds it again', () => {
    const controller = new AbortController();
    const a = onAbort(controller.signal, () => {});
    const b = onAbort(controller.signal, () => {});
    a();
    a();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    b();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    let called = 0;
    onAbort(controller.signal, () => called++);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(called).toBe(1);
  });
});

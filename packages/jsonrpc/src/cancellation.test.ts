import { describe, expect, it } from 'vitest';
import { CancelScope } from './cancellation.js';

describe('CancelScope', () => {
  it('calls each listener once, with the reason, and only the ones still added', () => {
    const scope = new CancelScope();
    const calls: string[] = [];
    const first = (r: unknown) => calls.push(`first:${(r as Error).message}`);
    const second = (r: unknown) => calls.push(`second:${(r as Error).message}`);
    const third = (r: unknown) => calls.push(`third:${(r as Error).message}`);
    scope.addListener(first);
    scope.addListener(second);
    scope.addListener(third);
    scope.removeListener(second);
    scope.abort(new Error('why'));
    scope.abort(new Error('again'));
    expect(calls).toEqual(['first:why', 'third:why']);
    expect(scope.aborted).toBe(true);
    expect((scope.reason as Error).message).toBe('why');
  });

  it('a single listener can be removed; a listener added after the abort is never called', () => {
    const scope = new CancelScope();
    let called = 0;
    const listener = () => called++;
    scope.addListener(listener);
    scope.removeListener(listener);
    scope.abort('x');
    scope.addListener(listener);
    expect(called).toBe(0);
  });

  it('makes its AbortSignal on first read, aborted with the same reason whenever it is read', () => {
    const before = new CancelScope();
    const signal = before.signal;
    expect(before.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    const reason = new Error('stop');
    before.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);

    const after = new CancelScope();
    after.abort(reason);
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe(reason);
  });
});

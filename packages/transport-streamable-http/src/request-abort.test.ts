import { describe, expect, it } from 'vitest';
import { RequestAbort } from './request-abort.js';

describe('RequestAbort', () => {
  it('emits abort once, with a reason, to what undici listens with', () => {
    const abort = new RequestAbort();
    let calls = 0;
    abort.once('abort', () => calls++);
    abort.abort();
    abort.abort(new Error('again'));
    expect(calls).toBe(1);
    expect(abort.aborted).toBe(true);
    expect((abort.reason as Error).name).toBe('AbortError');
  });

  it('a signal asked for before the abort follows it, with the same reason', () => {
    const abort = new RequestAbort();
    const signal = abort.signal;
    expect(signal.aborted).toBe(false);
    const reason = new Error('closed');
    abort.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
  });

  it('a signal asked for after the abort is already aborted', () => {
    const abort = new RequestAbort();
    const reason = new Error('cancelled');
    abort.abort(reason);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
  });
});

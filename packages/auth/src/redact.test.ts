import { describe, expect, it } from 'vitest';
import { redact, SecretSet } from './redact.js';

describe('SecretSet', () => {
  it('hides the values it holds, and only its own: there is no process-wide set', () => {
    const a = new SecretSet();
    const b = new SecretSet();
    a.remember('token-of-provider-a-123');
    expect(a.redact('got token-of-provider-a-123 back')).toBe('got [redacted] back');
    expect(b.redact('got token-of-provider-a-123 back')).toBe('got token-of-provider-a-123 back');
    expect(redact('got token-of-provider-a-123 back')).toBe('got token-of-provider-a-123 back');
  });

  it('keeps the most recent values up to its limit; a value used again counts as recent', () => {
    const set = new SecretSet(256);
    for (let i = 0; i < 10_000; i++) {
      set.remember(`secret-value-${i}`);
      if (i % 100 === 0) set.remember('secret-used-often');
    }
    expect(set.size).toBe(256);
    expect(set.has('secret-value-9999')).toBe(true);
    // 255 of the newest values, and the one used again.
    expect(set.has('secret-value-9745')).toBe(true);
    expect(set.has('secret-value-9744')).toBe(false);
    expect(set.has('secret-value-0')).toBe(false);
    expect(set.has('secret-used-often')).toBe(true);
  });

  it('ignores short values and clears', () => {
    const set = new SecretSet();
    set.remember('short');
    set.remember(undefined);
    expect(set.size).toBe(0);
    set.remember('long-enough-secret');
    set.clear();
    expect(set.size).toBe(0);
    expect(set.redact('long-enough-secret')).toBe('long-enough-secret');
    expect(() => new SecretSet(0)).toThrow(TypeError);
  });
});

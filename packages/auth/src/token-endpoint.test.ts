import { describe, expect, it } from 'vitest';
import { expiresAtOf, MAX_TOKEN_LIFETIME_S, toStored } from './token-endpoint.js';

describe('expires_in from a token endpoint', () => {
  const now = 1_700_000_000_000;

  it('seconds from now, as a number or a string of digits', () => {
    expect(expiresAtOf(3600, now)).toBe(now + 3_600_000);
    expect(expiresAtOf(' 3600 ', now)).toBe(now + 3_600_000);
    expect(expiresAtOf(0, now)).toBe(now);
  });

  it('a huge lifetime is clamped to a year: a token is never taken to live forever', () => {
    expect(expiresAtOf(1e12, now)).toBe(now + MAX_TOKEN_LIFETIME_S * 1000);
    expect(expiresAtOf(Number.MAX_VALUE, now)).toBe(now + MAX_TOKEN_LIFETIME_S * 1000);
    expect(expiresAtOf('9'.repeat(15), now)).toBe(now + MAX_TOKEN_LIFETIME_S * 1000);
  });

  it.each([
    ['negative', -30],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
    ['a word', 'soon'],
    ['a negative string', '-30'],
    ['a string past 15 digits', '9'.repeat(400)],
    ['null', null],
    ['an object', { seconds: 30 }],
    ['an array', [3600]],
    ['a boolean', true],
  ])('%s counts as absent', (_what, value) => {
    expect(expiresAtOf(value, now)).toBeUndefined();
  });

  it('a stored token never gets a non-finite expiry', () => {
    const stored = toStored({ access_token: 'a', expires_in: JSON.parse('1e400') });
    expect(stored.expires_at).toBeUndefined();
    expect(JSON.parse(JSON.stringify(stored))).toEqual({ access_token: 'a', token_type: 'Bearer' });
  });
});

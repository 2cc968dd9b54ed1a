import { describe, expect, it } from 'vitest';
import { checkTimeoutMs, MAX_TIMER_MS, parseMsFlag } from './flags.js';
import { UsageError } from './io.js';

describe('millisecond options', () => {
  it('accept whole numbers from 1 to 2^31-1', () => {
    expect(parseMsFlag('1', '--timeout')).toBe(1);
    expect(parseMsFlag('60000', '--timeout')).toBe(60_000);
    expect(parseMsFlag('2147483647', '--timeout')).toBe(MAX_TIMER_MS);
    expect(checkTimeoutMs(5000, 'x')).toBe(5000);
  });

  it('accept 0 only with min 0 (a wait that may be skipped), with the range in the error', () => {
    expect(parseMsFlag('0', '--backend-wait-ms', { min: 0 })).toBe(0);
    expect(parseMsFlag('2147483647', '--backend-wait-ms', { min: 0 })).toBe(MAX_TIMER_MS);
    expect(() => parseMsFlag('-1', '--backend-wait-ms', { min: 0 })).toThrow(
      /^--backend-wait-ms must be a whole number of milliseconds from 0 to 2147483647, got "-1"/,
    );
    expect(() => parseMsFlag('2147483648', '--backend-wait-ms', { min: 0 })).toThrow(UsageError);
  });

  it.each([
    '99999999999',
    '2147483648',
    '0',
    '-5',
    '1e3',
    '0x10',
    '1.5',
    ' 5',
    '',
    'abc',
    'Infinity',
    'NaN',
  ])('reject --timeout %j with a usage error naming the flag and the range', (text) => {
    expect(() => parseMsFlag(text, '--timeout')).toThrow(UsageError);
    expect(() => parseMsFlag(text, '--timeout')).toThrow(
      /^--timeout must be a whole number of milliseconds from 1 to 2147483647, got "/,
    );
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 1.5, 2 ** 31, '100', null])(
    'reject a config timeout of %j with a TypeError naming where it came from',
    (value) => {
      expect(() => checkTimeoutMs(value, 'server "a": "timeout"')).toThrow(TypeError);
      expect(() => checkTimeoutMs(value, 'server "a": "timeout"')).toThrow(
        /^server "a": "timeout"/,
      );
    },
  );
});

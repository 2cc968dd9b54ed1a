/**
 * Range checks for numeric options, shared by every mcpkit package.
 *
 * An option out of range is a programming or configuration error, so it throws a
 * `TypeError` at construction (or at the call, for per-call options) naming the option and
 * the allowed range. Silent fallbacks are what made `maxMessageBytes: NaN` turn the size
 * limit off, and what made `setTimeout` print TimeoutOverflowWarning and fire at once.
 */

/** The longest delay `setTimeout` honours (2^31 − 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface TimerOptionRules {
  /** `0` is allowed (the option documents what it means, e.g. "no timeout"). */
  zero?: boolean;
  /** `Infinity` is allowed and means "none". */
  infinity?: boolean;
}

export interface CountOptionRules {
  /** Smallest allowed value. Default 1. */
  min?: number;
  /** Largest allowed value. Default `Number.MAX_SAFE_INTEGER`. */
  max?: number;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  return typeof value;
}

function fail(owner: string, name: string, range: string, value: unknown): never {
  throw new TypeError(`${owner}: "${name}" must be ${range}; got ${describe(value)}`);
}

/**
 * A duration in milliseconds: finite, not negative (zero only where `rules.zero`), at most
 * `MAX_TIMER_MS`, or `Infinity` where `rules.infinity`. `undefined` passes through.
 */
export function checkTimerMs<T extends number | undefined>(
  owner: string,
  name: string,
  value: T,
  rules: TimerOptionRules = {},
): T {
  if (value === undefined) return value;
  if (typeof value === 'number' && rules.infinity && value === Number.POSITIVE_INFINITY)
    return value;
  const min = rules.zero ? 0 : 1;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > MAX_TIMER_MS) {
    const none = rules.infinity ? ' (or Infinity for none)' : '';
    fail(owner, name, `a number of milliseconds from ${min} to ${MAX_TIMER_MS}${none}`, value);
  }
  return value;
}

/** A whole count (bytes, attempts, pages): an integer from `min` (default 1) to `max`. */
export function checkCount<T extends number | undefined>(
  owner: string,
  name: string,
  value: T,
  rules: CountOptionRules = {},
): T {
  if (value === undefined) return value;
  const min = rules.min ?? 1;
  const max = rules.max ?? Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    fail(owner, name, `an integer from ${min} to ${max}`, value);
  return value;
}

/** A finite number within `[min, max]` (a growth factor, a ratio). */
export function checkFinite<T extends number | undefined>(
  owner: string,
  name: string,
  value: T,
  min: number,
  max: number,
): T {
  if (value === undefined) return value;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    fail(owner, name, `a finite number from ${min} to ${max}`, value);
  return value;
}

/** `maxMessageBytes`: a whole number of bytes, at least 1. `undefined` passes through. */
export function checkMaxMessageBytes<T extends number | undefined>(owner: string, value: T): T {
  return checkCount(owner, 'maxMessageBytes', value);
}

import { UsageError } from './io.js';

/** The longest delay a Node timer takes; longer ones fire at once with a warning. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A millisecond flag such as `--timeout`: digits only, `min` (1 unless given, 0 for a wait
 * that may be skipped) … 2147483647. Anything else is a usage error, before a timer could
 * turn it into a `TimeoutOverflowWarning` (or `NaN` into no timeout at all).
 */
export function parseMsFlag(text: string, flag: string, options: { min?: 0 | 1 } = {}): number {
  const min = options.min ?? 1;
  const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= MAX_TIMER_MS))
    throw new UsageError(
      `${flag} must be a whole number of milliseconds from ${min} to ${MAX_TIMER_MS}, got "${text}"`,
    );
  return value;
}

/**
 * The largest `--max-message-bytes`: 1 GiB. A message near it is already more than a
 * JavaScript string holds comfortably (Node's limit is about 512 Mi characters).
 */
export const MAX_MESSAGE_BYTES_FLAG = 1_073_741_824;

/** `--max-message-bytes`: digits only, 1 … 1073741824; anything else is a usage error. */
export function parseBytesFlag(text: string, flag: string): number {
  const value = /^[0-9]{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= MAX_MESSAGE_BYTES_FLAG))
    throw new UsageError(
      `${flag} must be a whole number of bytes from 1 to ${MAX_MESSAGE_BYTES_FLAG}, got "${text}"`,
    );
  return value;
}

/** The same rule for a number from a config file: a `TypeError` naming where it came from. */
export function checkTimeoutMs(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TIMER_MS)
    throw new TypeError(
      `${what} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${JSON.stringify(value) ?? String(value)}`,
    );
  return value;
}

/** A JSON object flag such as `--elicit '<json>'` (the next form elicitation's answer). */
export function parseJsonObjectFlag(text: string, flag: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${flag} must be a JSON object, like '{"confirm": true}'`);
  return value as Record<string, unknown>;
}

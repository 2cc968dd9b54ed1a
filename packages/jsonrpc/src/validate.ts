import { InvalidMessageError } from './errors.js';
import type { JsonRpcId, JsonRpcMessage } from './messages.js';

/**
 * Envelope validation: checks exactly what JSON-RPC 2.0 requires of a message and
 * nothing of its params or result (that is the protocol layer's job). Hand-written so
 * it costs a few property reads per message.
 */

export type ValidationResult =
  | { ok: true; message: JsonRpcMessage }
  | { ok: false; error: InvalidMessageError };

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function readableId(value: Record<string, unknown>): JsonRpcId | null {
  return isId(value.id) ? value.id : null;
}

/** Validates one parsed JSON value as a JSON-RPC 2.0 message. */
export function validateMessage(value: unknown): ValidationResult {
  const error = checkMessage(value);
  return error === undefined
    ? { ok: true, message: value as JsonRpcMessage }
    : { ok: false, error };
}

function fail(reason: string, id: JsonRpcId | null): InvalidMessageError {
  return new InvalidMessageError(`invalid JSON-RPC message: ${reason}`, id);
}

/** The hot path: `undefined` for a valid message, no allocation. */
function checkMessage(value: unknown): InvalidMessageError | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('expected an object', null);
  }
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return fail('"jsonrpc" must be "2.0"', readableId(m));
  const method = m.method;
  if (method !== undefined) {
    if (typeof method !== 'string') return fail('"method" must be a string', readableId(m));
    const params = m.params;
    if (params !== undefined && (typeof params !== 'object' || params === null)) {
      return fail('"params" must be an object or an array', readableId(m));
    }
    if ('id' in m && !isId(m.id)) {
      return fail('a request "id" must be a string or a number', null);
    }
    return undefined;
  }
  const hasResult = 'result' in m;
  const hasError = 'error' in m;
  if (hasResult === hasError) {
    return fail('a response has exactly one of "result" and "error"', readableId(m));
  }
  if (hasResult) {
    if (!isId(m.id)) return fail('a response "id" must be a string or a number', null);
    return undefined;
  }
  if (m.id !== null && !isId(m.id)) {
    return fail('an error response "id" must be a string, a number or null', null);
  }
  const error = m.error as Record<string, unknown> | null;
  if (typeof error !== 'object' || error === null) {
    return fail('"error" must be an object', readableId(m));
  }
  if (typeof error.code !== 'number' || !Number.isInteger(error.code)) {
    return fail('"error.code" must be an integer', readableId(m));
  }
  if (typeof error.message !== 'string') {
    return fail('"error.message" must be a string', readableId(m));
  }
  return undefined;
}

/**
 * Validates a parsed value that may be a batch. Calls `onmessage` for every valid
 * message (in order) and `onerror` for every invalid one; one bad entry never hides
 * the others. An empty batch is itself invalid.
 */
export function dispatchParsed(
  value: unknown,
  onmessage: (message: JsonRpcMessage) => void,
  onerror: (error: InvalidMessageError) => void,
): void {
  if (Array.isArray(value)) {
    if (value.length === 0) {
      onerror(new InvalidMessageError('invalid JSON-RPC message: empty batch', null));
      return;
    }
    for (const item of value) {
      const error = checkMessage(item);
      if (error === undefined) onmessage(item as JsonRpcMessage);
      else onerror(error);
    }
    return;
  }
  const error = checkMessage(value);
  if (error === undefined) onmessage(value as JsonRpcMessage);
  else onerror(error);
}

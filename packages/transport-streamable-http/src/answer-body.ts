import { readBodyExcerpt, readBodyLimited } from '@mcpkit/jsonrpc/internal';
import type { Dispatcher } from 'undici';

/**
 * Reading the body of a POST's answer without trusting its size: every read here is
 * bounded while it happens, and cancels the body once it has what it needs.
 */

export function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function contentType(res: Dispatcher.ResponseData): string {
  return (header(res.headers, 'content-type') ?? '').toLowerCase();
}

/**
 * The body of a non-2xx answer. 2026-07-28 servers answer protocol errors (unsupported
 * version, header mismatch, unknown method) with a 4xx whose JSON body is the JSON-RPC
 * error for our request: that body is a message, bounded by `limitBytes`. Any other
 * error body is read only as far as an excerpt needs (a hostile server may send gigabytes).
 */
export function readErrorAnswer(
  res: Dispatcher.ResponseData,
  expectsResponse: boolean,
  limitBytes: number,
  tooLarge: (receivedBytes: number) => Error,
): Promise<string> {
  const status = res.statusCode;
  const rpcError =
    expectsResponse &&
    status >= 400 &&
    status < 500 &&
    contentType(res).startsWith('application/json');
  return rpcError ? readBodyLimited(res.body, limitBytes, tooLarge) : readBodyExcerpt(res.body);
}

/** A 2xx JSON answer of at most `limitBytes`; one announced larger is not read at all. */
export function readJsonAnswer(
  res: Dispatcher.ResponseData,
  limitBytes: number,
  tooLarge: (receivedBytes: number) => Error,
): Promise<string> {
  const length = Number(header(res.headers, 'content-length'));
  if (length > limitBytes) {
    res.body.destroy();
    return Promise.reject(tooLarge(length));
  }
  return readBodyLimited(res.body, limitBytes, tooLarge);
}

import { TimeoutError } from '@mcpkit/jsonrpc';
import { authDefaults } from './defaults.js';
import { checkEndpoint, type EndpointSource, showValue } from './endpoint.js';
import { AuthError, AuthResponseTooLargeError } from './errors.js';
import type { SecretSet } from './redact.js';

export type FetchLike = typeof fetch;

/** What every network step of the auth package runs with. */
export interface RequestContext {
  fetchFn: FetchLike;
  /** `server "x"` or the server's URL, first in every message. */
  label: string;
  /** The operation's deadline or the caller's abort: the step ends with its reason. */
  signal?: AbortSignal | undefined;
  /** This one step. Default `authDefaults.requestTimeoutMs`. */
  timeoutMs?: number | undefined;
  /** A 2xx body. Default `authDefaults.maxResponseBytes`. */
  maxResponseBytes?: number | undefined;
  /** Other bodies: only an excerpt is read. Default `authDefaults.maxErrorBodyBytes`. */
  maxErrorBodyBytes?: number | undefined;
  /** Values to hide in messages besides the usual patterns. */
  secrets?: SecretSet | undefined;
}

export interface BoundedResponse {
  status: number;
  ok: boolean;
  headers: Headers;
  /** The URL that answered (after redirects). */
  url: string;
  /** The body: whole for a 2xx, at most `maxErrorBodyBytes` otherwise. */
  text: string;
}

interface StepOptions {
  /** e.g. `token request`. */
  what: string;
  /** Follow redirects (GET only), each target checked like the endpoint itself. */
  follow?: Omit<EndpointSource, 'where'>;
  /** Only the status and headers matter: the body is cancelled unread. */
  discardBody?: boolean;
}

const isRedirect = (status: number) => status >= 300 && status < 400 && status !== 304;
const kib = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);

/** Rejects with `signal.reason` as soon as `signal` aborts, whatever `promise` does. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Reads at most `limit` bytes of `res`'s body; the rest is cancelled, never buffered. */
async function readAtMost(
  res: Response,
  limit: number,
  signal: AbortSignal,
): Promise<{ text: string; over: boolean }> {
  if (!res.body) return { text: '', over: false };
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (res.ok && declared > limit) {
    await res.body.cancel().catch(() => {});
    return { text: '', over: true };
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  let done = false;
  try {
    while (!done) {
      const next = await raceAbort(reader.read(), signal);
      if (next.done) {
        done = true;
        break;
      }
      const room = limit - size;
      if (next.value.byteLength > room) {
        chunks.push(next.value.subarray(0, room));
        size = limit;
        over = true;
        break;
      }
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } finally {
    // Cancelling is what stops the sender: the rest of the body is never buffered.
    if (!done) await reader.cancel().catch(() => {});
    try {
      reader.releaseLock();
    } catch {
      // A read still pending after an abort: the stream is cancelled either way.
    }
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks, size)), over };
}

/**
 * One network step: a fetch whose answer, body included, arrives within the step's time,
 * whose body is read up to its limit only, and whose redirects are followed only where
 * asked and only to URLs that pass the endpoint rule. `url` must already have been
 * checked. Fails with `TimeoutError`, `AuthResponseTooLargeError`, `AuthError`, or the
 * reason of `ctx.signal`.
 */
export async function fetchBounded(
  ctx: RequestContext,
  url: URL | string,
  init: { method?: string; headers?: Record<string, string>; body?: string },
  step: StepOptions,
): Promise<BoundedResponse> {
  const timeoutMs = ctx.timeoutMs ?? authDefaults.requestTimeoutMs;
  const maxBytes = ctx.maxResponseBytes ?? authDefaults.maxResponseBytes;
  const maxErrorBytes = ctx.maxErrorBodyBytes ?? authDefaults.maxErrorBodyBytes;
  const method = init.method ?? 'GET';
  const show = (u: string) => showValue(ctx.secrets ? ctx.secrets.redact(u) : u);
  let current = String(url);
  const timeout = new AbortController();
  const timer = setTimeout(
    () =>
      timeout.abort(
        new TimeoutError(
          `${ctx.label}: ${step.what}: ${method} ${show(current)} did not finish within ${timeoutMs / 1000} s; the authorization server is down, slow or stalling: try again later`,
          timeoutMs,
        ),
      ),
    timeoutMs,
  );
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout.signal]) : timeout.signal;
  try {
    for (let hops = 0; ; hops++) {
      signal.throwIfAborted();
      let res: Response;
      try {
        res = await raceAbort(
          ctx.fetchFn(current, { ...init, method, redirect: 'manual', signal }),
          signal,
        );
      } catch (cause) {
        if (signal.aborted) throw signal.reason;
        throw new AuthError(
          `${ctx.label}: ${step.what}: ${method} ${show(current)} failed: ${show((cause as Error).message)}`,
          undefined,
          { cause },
        );
      }
      if (isRedirect(res.status)) {
        await res.body?.cancel().catch(() => {});
        const location = res.headers.get('location');
        if (!step.follow || location === null)
          throw new AuthError(
            `${ctx.label}: ${step.what}: ${method} ${show(current)} answered ${res.status}, a redirect${location === null ? ' without a Location' : ', which is not followed for this request'}; the server must answer at that URL itself`,
          );
        if (hops >= authDefaults.maxRedirects)
          throw new AuthError(
            `${ctx.label}: ${step.what}: more than ${authDefaults.maxRedirects} redirects from ${show(String(url))}; stopped`,
          );
        current = checkEndpoint(
          location,
          { ...step.follow, where: `a redirect from ${show(current)}` },
          current,
        ).href;
        continue;
      }
      if (step.discardBody) {
        await res.body?.cancel().catch(() => {});
        return { status: res.status, ok: res.ok, headers: res.headers, url: current, text: '' };
      }
      const limit = res.ok ? maxBytes : maxErrorBytes;
      const { text, over } = await readAtMost(res, limit, signal);
      if (over && res.ok)
        throw new AuthResponseTooLargeError(
          `${ctx.label}: ${step.what}: ${show(current)} sent more than ${kib(limit)}; stopped reading. No genuine answer is that large: the server is misbehaving or hostile, ask its operator`,
          limit,
          show(current),
        );
      return { status: res.status, ok: res.ok, headers: res.headers, url: current, text };
    }
  } catch (error) {
    // Whatever failed, a step that ran out of time says so (not "fetch failed").
    if (signal.aborted) throw signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** `text` as a JSON object, or `undefined`. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

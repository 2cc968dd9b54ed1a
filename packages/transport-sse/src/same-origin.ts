import {
  ConnectionClosedError,
  type HttpAuth,
  HttpError,
  type McpkitErrorOptions,
  TransportError,
} from '@mcpkit/jsonrpc';
import { noteAuthResponse } from '@mcpkit/jsonrpc/internal';
import { type Dispatcher, request } from 'undici';

/**
 * A legacy SSE server named an endpoint, or redirected a request, to another origin than
 * its event stream's. Followed, it would carry the client's messages (and its credentials)
 * to a host the user never configured, so it is refused.
 */
export class CrossOriginError extends TransportError {
  static override readonly brand: string = '@mcpkit/transport-sse.CrossOriginError';
  override readonly name: string = 'CrossOriginError';
  /** The URL that was refused. */
  readonly url: string;
  /** The origin of the configured event-stream URL: the only one followed. */
  readonly allowedOrigin: string;

  constructor(message: string, url: string, allowedOrigin: string, options?: McpkitErrorOptions) {
    super(message, options);
    this.url = url;
    this.allowedOrigin = allowedOrigin;
  }
}

/** How many redirects one request follows before it fails: a loop ends here. */
export const MAX_SSE_REDIRECTS = 5;

/** Statuses whose `Location` names where the same request should go. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Where a redirect answer sends the request, resolved against the URL that answered;
 * undefined when the answer is not a redirect with a usable `Location`.
 */
export function redirectTarget(res: Dispatcher.ResponseData, from: URL): URL | undefined {
  if (!REDIRECTS.has(res.statusCode)) return undefined;
  const raw = res.headers.location;
  const location = Array.isArray(raw) ? raw[0] : raw;
  if (typeof location !== 'string') return undefined;
  try {
    return new URL(location, from);
  } catch {
    return undefined;
  }
}

/**
 * Throws `CrossOriginError` unless `target` is on `stream`'s origin. `what` says what named
 * the target (`the endpoint event`, `a redirect of GET …`), for the message.
 */
export function checkSameOrigin(description: string, stream: URL, target: URL, what: string): void {
  if (target.origin === stream.origin) return;
  throw new CrossOriginError(
    `${description}: refusing ${target.href} from ${what}: it is not on the origin of the event stream ${stream.href} (${stream.origin}); check the server's URL, or that the server is the one you meant`,
    target.href,
    stream.origin,
  );
}

/**
 * Fails when the dispatcher followed redirects on its own (an undici redirect interceptor
 * lists the hops in the response's `context.history`): undici does not say where the last
 * hop landed, so the origin rule could not be kept. The transport follows same-origin
 * redirects itself.
 */
export function refuseDispatcherRedirects(
  description: string,
  stream: URL,
  res: Dispatcher.ResponseData,
  method: string,
): void {
  const history = (res.context as { history?: unknown } | undefined)?.history;
  if (!Array.isArray(history) || history.length === 0) return;
  const from = String(history[0]);
  throw new CrossOriginError(
    `${description}: the dispatcher followed a redirect of ${method} ${from} on its own, so where the request went cannot be checked against the origin of ${stream.href}; remove the dispatcher's redirect interceptor (the transport follows same-origin redirects itself)`,
    from,
    stream.origin,
  );
}

/** What `requestSameOrigin` needs of the transport. */
export interface SameOriginContext {
  description: string;
  /** The event stream's URL: its origin is the only one followed. */
  stream: URL;
  dispatcher: Dispatcher;
  /** The transport's: an abort means it closed. */
  signal: AbortSignal;
  auth: HttpAuth | undefined;
  /** The static and auth headers for a request to `url`. */
  headers(method: string, url: URL): Promise<Record<string, string>>;
}

/** A request's options besides its method, URL and the transport's parts, given its headers. */
export type SameOriginInit = (
  headers: Record<string, string>,
) => Omit<Dispatcher.RequestOptions, 'path' | 'method' | 'origin'>;

export interface SameOriginResponse {
  res: Dispatcher.ResponseData;
  /** Where the answer came from, after any redirects. */
  url: URL;
  /** The headers the answered request carried (an auth hook compares its token with them). */
  sentHeaders: Record<string, string>;
}

/**
 * One request, following same-origin redirects itself (at most `MAX_SSE_REDIRECTS`); a
 * redirect to another origin fails with `CrossOriginError` before anything is sent there.
 * A POST follows only 307 and 308, which keep the method and body. Network failures are
 * `HttpError`s, and failures after the transport closed `ConnectionClosedError`s.
 */
export async function requestSameOrigin(
  ctx: SameOriginContext,
  method: 'GET' | 'POST',
  start: URL,
  init: SameOriginInit,
): Promise<SameOriginResponse> {
  let url = start;
  for (let hops = 0; ; hops++) {
    // Asked anew for each hop: a DPoP proof signs the URL it goes to.
    const sentHeaders = await ctx.headers(method, url);
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, {
        method,
        dispatcher: ctx.dispatcher,
        signal: ctx.signal,
        ...init(sentHeaders),
      });
    } catch (error) {
      if (ctx.signal.aborted)
        throw new ConnectionClosedError(
          `${ctx.description}: closed while ${method} ${url.href} was in flight`,
          { cause: error },
        );
      throw new HttpError(
        `${ctx.description}: ${method} ${url.href} failed: ${(error as Error).message}`,
        0,
        url.href,
        '',
        { cause: error },
      );
    }
    noteAuthResponse(ctx.auth, url.href, res.statusCode, res.headers);
    const target = redirectTarget(res, url);
    const follow =
      target !== undefined &&
      (method === 'GET' || res.statusCode === 307 || res.statusCode === 308);
    if (!follow) {
      try {
        refuseDispatcherRedirects(ctx.description, ctx.stream, res, method);
      } catch (error) {
        await res.body.dump().catch(() => {});
        throw error;
      }
      return { res, url, sentHeaders };
    }
    await res.body.dump().catch(() => {});
    checkSameOrigin(
      ctx.description,
      ctx.stream,
      target,
      `a ${res.statusCode} redirect of ${method} ${url.href}`,
    );
    if (hops >= MAX_SSE_REDIRECTS)
      throw new HttpError(
        `${ctx.description}: ${method} ${start.href} was redirected more than ${MAX_SSE_REDIRECTS} times; check the server's URL`,
        res.statusCode,
        url.href,
        '',
      );
    url = target;
  }
}

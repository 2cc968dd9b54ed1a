import { type McpkitErrorOptions, TransportError } from '@mcpkit/jsonrpc';
import type { Dispatcher } from 'undici';

/**
 * A legacy SSE server named an endpoint, or redirected a request, to another origin than
 * its event stream's. Followed, it would carry the client's messages (and its credentials)
 * to a host the user never configured, so it is refused.
 */
export class CrossOriginError extends TransportError {
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

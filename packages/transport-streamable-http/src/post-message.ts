import {
  type HttpAuth,
  HttpError,
  type JsonRpcId,
  type JsonRpcMessage,
  type MessageTooLargeError,
  SessionExpiredError,
  type TransportSendOptions,
  UnauthorizedError,
} from '@mcpkit/jsonrpc';
import {
  authorizationOf,
  MAX_ERROR_BODY_BYTES,
  noteAuthResponse,
  readBodyExcerpt,
} from '@mcpkit/jsonrpc/internal';
import { standardRequestHeaders } from '@mcpkit/protocol';
import { Dispatcher } from 'undici';
import { contentType, header, readErrorAnswer, readJsonAnswer } from './answer-body.js';
import type { RequestAbort } from './request-abort.js';
import { consumeResponseStream } from './response-stream.js';
import type { StreamHost } from './stream-host.js';
import { traceHeadersOf } from './trace-headers.js';

/** What posting one message needs of `StreamableHttpTransport`, besides its streams. */
export interface PostHost extends StreamHost {
  readonly url: URL;
  /** `url`'s origin and path, as the dispatcher takes them (worked out once). */
  readonly target: { readonly origin: string; readonly path: string };
  readonly dispatcher: Dispatcher;
  readonly auth: HttpAuth | undefined;
  /** The server's name, when the transport was given one (for messages). */
  readonly name: string | undefined;
  readonly maxMessageBytes: number;
  readonly sessionId: string | undefined;
  /** The server assigned (or re-assigned) the session. */
  adoptSession(sessionId: string): void;
  /** The transport's abort, joined with one response stream's own. */
  signalFor(streamAbort: RequestAbort | undefined): AbortSignal;
  headers(
    method: string,
    extra: Record<string, string>,
  ): Record<string, string> | Promise<Record<string, string>>;
  /** Per-message headers the client sets (2026-07-28 binding). */
  messageHeaders(message: JsonRpcMessage): Record<string, string> | undefined;
  tooLarge(what: string, method: string, receivedBytes: number): MessageTooLargeError;
  deliverText(text: string): void;
}

/**
 * undici's `request()` applied to the transport's dispatcher with the origin and path
 * already split: the exported `request(url, …)` parses the URL, reads its origin, path and
 * search through the URL's getters and copies the options, on every call (a CPU profile
 * of the HTTP bench put that wrapper at several µs of a call). Taken from the prototype
 * rather than called as `dispatcher.request`, as the wrapper does, so that a dispatcher
 * that implements only `dispatch` still works.
 */
const dispatchRequest = Dispatcher.prototype.request as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/**
 * POSTs one message and takes in the answer: JSON, an event stream (resumed when it drops),
 * or 202. A 401/403 asks the auth hook once and, when it supplied new credentials, posts
 * again; a 404 to a request that carried a session is `SessionExpiredError`.
 */
export async function postMessage(
  host: PostHost,
  message: JsonRpcMessage,
  requestId: JsonRpcId | undefined,
  streamAbort: RequestAbort | undefined,
  options: TransportSendOptions | undefined,
  authRetries: number,
): Promise<void> {
  const sentSession = host.sessionId;
  // A request's own abort goes to undici as it is (no AbortSignal made for a JSON answer).
  const signal = streamAbort ?? host.signalFor(undefined);
  let res: Dispatcher.ResponseData;
  const headers = host.headers(
    'POST',
    host.modern
      ? {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...traceHeadersOf(message),
          ...standardRequestHeaders(message),
          ...host.messageHeaders(message),
        }
      : {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...traceHeadersOf(message),
        },
  );
  // Without an auth hook the headers are at hand: no turn of the microtask queue for them.
  const sentHeaders = headers instanceof Promise ? await headers : headers;
  // This message's own headers (a gateway's identity for this call) win over the static
  // ones; their names are the sender's to keep off the binding's own headers.
  const own = options?.headers;
  if (own !== undefined) Object.assign(sentHeaders, own);
  try {
    res = await dispatchRequest.call(host.dispatcher, {
      origin: host.target.origin,
      path: host.target.path,
      method: 'POST',
      headers: sentHeaders,
      body: JSON.stringify(message),
      signal,
      // Per-request timeouts belong to the JSON-RPC layer, which cancels; streams may be long.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (error) {
    if (signal.aborted) return;
    throw host.networkError('POST', error);
  }
  const status = res.statusCode;
  const auth = host.auth;
  noteAuthResponse(auth, host.url.href, status, res.headers);
  if ((status === 401 || status === 403) && auth && authRetries < (auth.maxRetries ?? 1)) {
    const excerpt = await readBodyExcerpt(res.body);
    const retry = await auth.onUnauthorized({
      status,
      wwwAuthenticate: header(res.headers, 'www-authenticate'),
      url: host.url.href,
      authorization: authorizationOf(sentHeaders),
      method: 'POST',
      dpop: sentHeaders.dpop,
      dpopNonce: header(res.headers, 'dpop-nonce'),
      retries: authRetries,
    });
    if (retry) return postMessage(host, message, requestId, streamAbort, options, authRetries + 1);
    throw unauthorized(host, status, res, excerpt);
  }
  if (status === 401 || status === 403)
    throw unauthorized(host, status, res, await readBodyExcerpt(res.body));
  if (status === 404 && sentSession) {
    const excerpt = await readBodyExcerpt(res.body);
    throw new SessionExpiredError(
      `${host.description}: POST ${host.url.href} → 404: session ${sentSession} expired; a new session is needed`,
      host.url.href,
      sentSession,
      excerpt,
    );
  }
  if (status < 200 || status >= 300) {
    const body = await readErrorAnswer(res, requestId !== undefined, host.maxMessageBytes, (n) =>
      host.tooLarge(`the body of a ${status} answer`, 'POST', n),
    );
    if (requestId !== undefined && deliverErrorBody(host, body, requestId)) return;
    const excerpt = body.slice(0, MAX_ERROR_BODY_BYTES);
    throw new HttpError(
      `${host.description}: POST ${host.url.href} → ${status}${excerpt ? `: ${excerpt.slice(0, 200)}` : ''}`,
      status,
      host.url.href,
      excerpt,
    );
  }
  const session = header(res.headers, 'mcp-session-id');
  if (session) host.adoptSession(session);
  if (status === 202 || requestId === undefined) {
    await res.body.dump();
    return;
  }
  const type = contentType(res);
  if (type.startsWith('text/event-stream')) {
    await consumeResponseStream(host, res.body, requestId, host.signalFor(streamAbort));
    return;
  }
  if (type.startsWith('application/json')) {
    const text = await readJsonAnswer(res, host.maxMessageBytes, (n) =>
      host.tooLarge('a JSON response', 'POST', n),
    );
    host.deliverText(text);
    return;
  }
  await res.body.dump();
  throw new HttpError(
    `${host.description}: POST ${host.url.href} answered with content type "${type || 'none'}"; expected JSON or an event stream`,
    status,
    host.url.href,
    '',
  );
}

/** Delivers `text` when it is a JSON-RPC error response to `requestId`. */
function deliverErrorBody(host: PostHost, text: string, requestId: JsonRpcId): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const v = value as { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown } } | null;
  if (v?.jsonrpc !== '2.0' || v.id !== requestId || typeof v.error?.code !== 'number') return false;
  host.deliverText(text);
  return true;
}

function unauthorized(
  host: PostHost,
  status: number,
  res: Dispatcher.ResponseData,
  excerpt: string,
): UnauthorizedError {
  const challenge = header(res.headers, 'www-authenticate');
  return new UnauthorizedError(
    `${host.description}: POST ${host.url.href} → ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'}; the server needs authorization`,
    status,
    host.url.href,
    excerpt,
    challenge,
  );
}

import type { Cancellation } from './cancellation.js';
import type { JsonRpcId } from './messages.js';
import type { AuthInfo, HttpPeer, MessageExtra } from './transport.js';

export const CANCELLED_NOTIFICATION = 'notifications/cancelled';
export const PROGRESS_NOTIFICATION = 'notifications/progress';

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * Like `signal`, for a request sent on behalf of an incoming one (a proxy): it is
   * cancelled, and rejects with the reason, when `cancellation` is (`RequestContext.cancellation`).
   */
  cancellation?: Cancellation;
  /** Time without an answer before the request fails; `0` or `Infinity` for none. */
  timeoutMs?: number;
  /** Progress notifications restart the timeout (bounded by `maxTotalTimeoutMs`). */
  resetTimeoutOnProgress?: boolean;
  /** A hard limit that progress never extends. */
  maxTotalTimeoutMs?: number;
  /** Receives `notifications/progress` for this request; sets `_meta.progressToken`. */
  onprogress?: (progress: Progress) => void;
  /** The incoming request on whose behalf this one is sent (HTTP routing). */
  relatedRequestId?: JsonRpcId;
  /** Told the request's id before it is sent (to correlate what the server tags with it). */
  onid?: (id: JsonRpcId) => void;
  /**
   * HTTP transports: headers sent with this request's own POST only (a gateway telling a
   * backend who calls); other transports ignore them.
   */
  headers?: Readonly<Record<string, string>>;
}

export interface RequestContext {
  readonly id: JsonRpcId;
  readonly method: string;
  /** Aborted when the peer cancels the request or the connection closes (made on first use). */
  readonly signal: AbortSignal;
  /** The same as `signal`, without an `AbortSignal`: what a proxy passes on (`RequestOptions.cancellation`). */
  readonly cancellation: Cancellation;
  /** `params._meta` of the incoming request, if any. */
  readonly meta: Record<string, unknown> | undefined;
  /**
   * HTTP transports: the id of our own request on whose response stream this one arrived
   * (the request it belongs to); undefined elsewhere.
   */
  readonly relatedRequestId?: JsonRpcId | undefined;
  /** HTTP server transports: the caller's verified identity (`MessageExtra.authInfo`). */
  readonly authInfo?: AuthInfo | undefined;
  /** HTTP server transports: the request's trace context headers (`MessageExtra.traceHeaders`). */
  readonly traceHeaders?: Readonly<Record<string, string>> | undefined;
  /** HTTP server transports: the HTTP request the message arrived on (`MessageExtra.httpPeer`). */
  readonly httpPeer?: HttpPeer | undefined;
  /** Sends a notification related to this request. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Sends a request related to this request. */
  request(
    method: string,
    params?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<unknown>;
  /** Sends `notifications/progress` if the caller asked for progress; a no-op otherwise. */
  progress(progress: Progress): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers receive params the protocol layer types.
export type RequestHandler = (params: any, context: RequestContext) => unknown;
/**
 * `extra`: what the transport knows of the notification (over HTTP, the request on whose
 * response stream it arrived: `relatedRequestId`).
 */
// biome-ignore lint/suspicious/noExplicitAny: as above.
export type NotificationHandler = (params: any, extra?: MessageExtra) => void | Promise<void>;

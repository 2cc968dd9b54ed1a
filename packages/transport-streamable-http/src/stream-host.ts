import type { HttpError, JsonRpcId } from '@mcpkit/jsonrpc';
import type { ReconnectEvent, StreamRetryPolicy } from './reconnect.js';

/** What a stream reader knows of its events so far. */
export interface StreamState {
  answered: boolean;
  lastEventId: string | undefined;
  /** Messages delivered (counted on the standalone stream only). */
  received?: number;
}

/**
 * The parts of `StreamableHttpTransport` that its stream readers (the resumable response
 * stream, the standalone GET stream) use: one seam, so each reader lives in its own module
 * without reaching into the transport's private state.
 */
export interface StreamHost {
  readonly description: string;
  readonly policy: StreamRetryPolicy;
  /** The `retry` the server last sent, in ms. */
  readonly serverRetryMs: number | undefined;
  /** The 2026-07-28 binding is in force: streams cannot be resumed. */
  readonly modern: boolean;
  readonly closed: boolean;
  onreconnect(event: ReconnectEvent): void;
  /** The wait between attempts; settles when its signal aborts. */
  sleep(delayMs: number, signal: AbortSignal): Promise<void>;
  reportError(error: Error): void;
  /** GET for the standalone stream or to resume one; undefined when the server offers none. */
  openGet(
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<Buffer> | undefined>;
  /** Reads SSE events off `body` and delivers their messages. */
  readEvents(
    body: AsyncIterable<Buffer>,
    state: StreamState,
    requestId: JsonRpcId | undefined,
  ): Promise<void>;
  networkError(method: string, error: unknown): HttpError;
}

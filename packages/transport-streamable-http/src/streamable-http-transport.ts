import {
  AlreadyStartedError,
  ConnectionClosedError,
  DEFAULT_MAX_MESSAGE_BYTES,
  type HttpAuth,
  HttpError,
  type JsonRpcId,
  type JsonRpcMessage,
  type MessageExtra,
  MessageTooLargeError,
  SessionExpiredError,
  sleep,
  type TransportCapabilities,
  type TransportSendOptions,
} from '@mcpkit/jsonrpc';
import {
  checkMaxJsonDepth,
  checkMaxMessageBytes,
  checkTimerMs,
  DEFAULT_CLOSE_FLUSH_MS,
  dispatchJsonText,
  noteAuthResponse,
  PendingSends,
  readBodyExcerpt,
  readSseStream,
} from '@mcpkit/jsonrpc/internal';
import { eraOf, type McpTransport } from '@mcpkit/protocol';
import { Agent, type Dispatcher, request } from 'undici';
import { type PostHost, postMessage } from './post-message.js';
import {
  checkStreamRetryPolicy,
  type ReconnectEvent,
  type StreamRetryPolicy,
  streamRetryDefaults,
} from './reconnect.js';
import { RequestAbort } from './request-abort.js';
import { runStandaloneStream } from './standalone-stream.js';
import type { StreamState } from './stream-host.js';

/**
 * The static headers, the auth hook's and a request's own, later ones winning: one new
 * object. Not a literal of spreads: on Node 20 a spread after a non-empty first one (a
 * static `Authorization` header) takes V8's slow path, about 3 µs of every POST, where
 * `Object.assign` takes 60 ns. A source with an own `__proto__` key (which `Object.assign`
 * would not copy as a header) keeps the spread, so the headers sent are the same.
 */
function joinHeaders(
  a: Record<string, string> | undefined,
  b: Record<string, string>,
  c: Record<string, string>,
): Record<string, string> {
  if (
    (a !== undefined && Object.hasOwn(a, '__proto__')) ||
    Object.hasOwn(b, '__proto__') ||
    Object.hasOwn(c, '__proto__')
  )
    return { ...a, ...b, ...c };
  return Object.assign({}, a, b, c);
}

export interface StreamableHttpTransportOptions {
  url: string | URL;
  /** Sent with every request (auth headers from `auth` override them). */
  headers?: Record<string, string>;
  /** Supplies headers and handles 401/403 (see `@mcpkit/auth`). */
  auth?: HttpAuth;
  /** undici dispatcher (connection pool, proxy, TLS options). Default: a keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** Open the optional standalone GET stream after initialization. Default true. */
  openStandaloneStream?: boolean;
  reconnect?: Partial<StreamRetryPolicy>;
  /** Told of every reconnection attempt, for a host to show. */
  onreconnect?: (event: ReconnectEvent) => void;
  /**
   * Largest message accepted, in bytes: a JSON body, or one SSE event's data. A body or
   * event that grows past it is cancelled while it arrives. Default 64 MiB.
   */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and objects accepted in a message. Default 256 (`DEFAULT_MAX_JSON_DEPTH`). */
  maxJsonDepth?: number;
  /** Server name for error messages. */
  name?: string;
  /** Resume an existing session. */
  sessionId?: string;
  /**
   * How the transport waits between attempts to re-open a stream. Default: `sleep` of
   * @mcpkit/jsonrpc. It must settle once `signal` aborts (`close()` aborts it); inject one to
   * control time, as the tests do.
   */
  sleep?: (delayMs: number, signal: AbortSignal) => Promise<void>;
  /**
   * How long `close()` waits for notifications still being posted (a `notifications/cancelled`
   * sent just before closing, say) before it aborts them. Default 2000 ms; `0` aborts at once.
   */
  closeFlushMs?: number;
}

const capabilities: TransportCapabilities = Object.freeze({
  sendBeforeStart: false,
  serverToClientRequests: true,
  sessions: true,
});

/**
 * The Streamable HTTP transport for every revision that has it: the session-based binding
 * of 2025-03-26, 2025-06-18 and 2025-11-25 (sessions, an optional standalone GET stream
 * for server-initiated messages, dropped response streams resumed with `Last-Event-ID`),
 * and the stateless binding of 2026-07-28 and later (`Mcp-Method`/`Mcp-Name`/`Mcp-Param-*`
 * headers, cancellation by closing the stream, no resumption), picked by the version the
 * client sets with `setProtocolVersion`. Every message is a POST; answers come as JSON or
 * as an SSE stream. POSTing lives in post-message.ts, the streams in response-stream.ts
 * and standalone-stream.ts.
 */
export class StreamableHttpTransport implements McpTransport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly capabilities = capabilities;
  readonly description: string;
  readonly url: URL;
  /**
   * The HTTP version the requests go out in, when known: `1.1` with the transport's own
   * dispatcher (undici's `Agent`, which does not offer HTTP/2); `undefined` with one given
   * in `dispatcher` (it may negotiate HTTP/2). An instrumentation's `network.protocol.version`.
   */
  readonly httpVersion: string | undefined;

  private readonly options: StreamableHttpTransportOptions;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly policy: StreamRetryPolicy;
  private readonly maxMessageBytes: number;
  private readonly abort = new AbortController();
  private readonly responseStreams = new Map<JsonRpcId, RequestAbort>();
  /**
   * Every request's own abort while it is posted and read; `close()` aborts them all. Kept
   * apart from `responseStreams` (one per id) so that no request escapes `close()`, and so
   * that a request's abort is its own (a `RequestAbort`): `AbortSignal.any` per request cost
   * about a fifth of the client's CPU at 64 in flight (its weak references and finalizers).
   */
  private readonly requestAborts = new Set<RequestAbort>();
  /** Notification POSTs on their way: `close()` lets them finish first (`closeFlushMs`). */
  private readonly notifying = new PendingSends();
  private state: 'new' | 'open' | 'closed' = 'new';
  private protocolVersion: string | undefined;
  /** Ends the standalone stream of the current session; undefined while none runs. */
  private standalone: AbortController | undefined;
  private serverRetryMs: number | undefined;
  private _sessionId: string | undefined;
  /** What the stream readers (response-stream.ts, standalone-stream.ts) may use. */
  private readonly host: PostHost;
  private messageHeaders:
    | ((message: JsonRpcMessage) => Record<string, string> | undefined)
    | undefined;

  constructor(options: StreamableHttpTransportOptions) {
    const owner = 'StreamableHttpTransport';
    checkMaxJsonDepth(owner, options.maxJsonDepth);
    this.maxMessageBytes =
      checkMaxMessageBytes(owner, options.maxMessageBytes) ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.policy = checkStreamRetryPolicy(owner, { ...streamRetryDefaults, ...options.reconnect });
    checkTimerMs(owner, 'closeFlushMs', options.closeFlushMs, { zero: true });
    this.options = options;
    this.url = new URL(options.url);
    this.description = options.name
      ? `server "${options.name}"`
      : `${this.url.origin}${this.url.pathname}`;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000 });
    this.ownsDispatcher = options.dispatcher === undefined;
    this.httpVersion = this.ownsDispatcher ? '1.1' : undefined;
    this._sessionId = options.sessionId;
    const transport = this;
    this.host = {
      description: this.description,
      policy: this.policy,
      get serverRetryMs() {
        return transport.serverRetryMs;
      },
      get modern() {
        return transport.modern;
      },
      get closed() {
        return transport.state === 'closed';
      },
      onreconnect: (event) => this.options.onreconnect?.(event),
      sleep: options.sleep ?? sleep,
      reportError: (error) => this.onerror?.(error),
      openGet: (lastEventId, signal) => this.openGet(lastEventId, signal),
      readEvents: (body, state, requestId) => this.readEvents(body, state, requestId),
      networkError: (method, error) => this.networkError(method, error),
      url: this.url,
      target: { origin: this.url.origin, path: `${this.url.pathname}${this.url.search}` },
      dispatcher: this.dispatcher,
      auth: options.auth,
      name: options.name,
      maxMessageBytes: this.maxMessageBytes,
      get sessionId() {
        return transport._sessionId;
      },
      adoptSession: (sessionId) => {
        this._sessionId = sessionId;
      },
      signalFor: (streamAbort) => this.signalFor(streamAbort),
      headers: (method, extra) => this.headers(method, extra),
      messageHeaders: (message) => this.messageHeaders?.(message),
      tooLarge: (what, method, n) => this.tooLarge(what, method, n),
      deliverText: (text) => this.deliverText(text),
    };
  }

  get sessionId(): string | undefined {
    return this._sessionId;
  }

  /** The endpoint: what a client learns of the server's era holds for it. */
  get eraKey(): string {
    return this.url.href;
  }

  async start(): Promise<void> {
    if (this.state !== 'new')
      throw new AlreadyStartedError(
        `${this.description}: start() may be called only once; create a new transport to reconnect`,
      );
    this.state = 'open';
  }

  setProtocolVersion(version: string | undefined): void {
    this.protocolVersion = version;
  }

  setMessageHeaders(
    headers: ((message: JsonRpcMessage) => Record<string, string> | undefined) | undefined,
  ): void {
    this.messageHeaders = headers;
  }

  /** The stateless binding (2026-07-28 and later) is in force. */
  get modern(): boolean {
    return this.protocolVersion !== undefined && eraOf(this.protocolVersion) === 'modern';
  }

  /**
   * Forgets the session. Its standalone stream ends here: the server forgot that session
   * too, and re-opening the old stream under the next session's id would only be refused
   * (409) while the next session opens a stream of its own after initialization.
   */
  resetSession(): void {
    this._sessionId = undefined;
    this.standalone?.abort();
    this.standalone = undefined;
  }

  async send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    if (this.state !== 'open') {
      throw new ConnectionClosedError(
        `${this.description}: cannot send, the transport is ${this.state === 'new' ? 'not started' : 'closed'}`,
        { unsent: true },
      );
    }
    // Cancelling a request also closes its response stream: nothing more will be read.
    // From 2026-07-28 on, closing the stream *is* the cancellation: nothing is posted.
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: JsonRpcId } | undefined)?.requestId;
      if (id !== undefined) this.responseStreams.get(id)?.abort();
      if (this.modern) return;
    }
    const requestId = 'method' in message && 'id' in message ? message.id : undefined;
    const streamAbort = requestId === undefined ? undefined : new RequestAbort();
    if (streamAbort) {
      this.responseStreams.set(requestId!, streamAbort);
      this.requestAborts.add(streamAbort);
    }
    const posted = postMessage(this.host, message, requestId, streamAbort, options, 0);
    if (requestId === undefined && 'method' in message) this.notifying.track(posted);
    try {
      await posted;
    } finally {
      if (streamAbort) {
        this.requestAborts.delete(streamAbort);
        if (this.responseStreams.get(requestId!) === streamAbort)
          this.responseStreams.delete(requestId!);
      }
    }
    if ('method' in message && message.method === 'notifications/initialized')
      this.openStandalone();
  }

  private headers(
    method: string,
    extra: Record<string, string>,
  ): Record<string, string> | Promise<Record<string, string>> {
    // Without an auth hook there is nothing to wait for: no promise on the hot path.
    if (!this.options.auth) return this.buildHeaders({}, extra);
    return Promise.resolve(this.options.auth.headers({ method, url: this.url.href })).then((auth) =>
      this.buildHeaders(auth, extra),
    );
  }

  private buildHeaders(
    auth: Record<string, string>,
    extra: Record<string, string>,
  ): Record<string, string> {
    const h = joinHeaders(this.options.headers, auth, extra);
    if (this._sessionId) h['mcp-session-id'] = this._sessionId;
    if (this.protocolVersion) h['mcp-protocol-version'] = this.protocolVersion;
    return h;
  }

  /** A request's own signal (`close()` aborts it through `requestAborts`), else the transport's. */
  private signalFor(streamAbort: RequestAbort | undefined): AbortSignal {
    return streamAbort ? streamAbort.signal : this.abort.signal;
  }

  private tooLarge(what: string, method: string, receivedBytes: number): MessageTooLargeError {
    const limit = this.maxMessageBytes;
    return new MessageTooLargeError(
      `${this.description}: ${what} to ${method} ${this.url.href} exceeds the ${limit}-byte message limit (${receivedBytes} bytes so far); the stream was closed`,
      limit,
      { serverName: this.options.name, url: this.url.href },
    );
  }

  private networkError(method: string, error: unknown): HttpError {
    const cause = error as Error & { code?: string };
    return new HttpError(
      `${this.description}: ${method} ${this.url.href} failed: ${cause.code ?? ''} ${cause.message}`.replace(
        /\s+/g,
        ' ',
      ),
      0,
      this.url.href,
      '',
      { cause },
    );
  }

  private deliverText(text: string): void {
    if (text.trim() === '') return;
    dispatchJsonText(
      text,
      this.description,
      (m) => this.onmessage?.(m),
      (e) => this.onerror?.(e),
      'the response body',
      this.options.maxJsonDepth,
    );
  }

  private async readEvents(
    body: AsyncIterable<Buffer>,
    state: StreamState,
    requestId: JsonRpcId | undefined,
  ): Promise<void> {
    await readSseStream(body, {
      maxEventBytes: this.maxMessageBytes,
      tooLarge: (bytes) =>
        this.tooLarge(
          requestId === undefined ? 'an event on the standalone stream' : 'an event in the answer',
          requestId === undefined ? 'GET' : 'POST',
          bytes,
        ),
      onretry: (ms) => {
        this.serverRetryMs = ms;
      },
      // Priming events carry an id and no data: the id is what a resumption needs.
      onid: (id) => {
        if (id) state.lastEventId = id;
      },
      onevent: (event) => {
        if (!event.data) return;
        if (state.received !== undefined) state.received++;
        dispatchJsonText(
          event.data,
          this.description,
          (m) => {
            if (requestId !== undefined && !('method' in m) && m.id === requestId)
              state.answered = true;
            this.onmessage?.(
              m,
              requestId === undefined ? undefined : { relatedRequestId: requestId },
            );
          },
          (e) => this.onerror?.(e),
          undefined,
          this.options.maxJsonDepth,
        );
      },
    });
  }

  /**
   * GET for the standalone stream or to resume one. Undefined when the server offers none
   * (405, 406, or 404 to a GET without a session). A 404 to a GET that carried the session
   * id is `SessionExpiredError`, as for a POST: the server forgot the session.
   */
  private async openGet(
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<Buffer> | undefined> {
    const sentSession = this._sessionId;
    const res = await request(this.url, {
      method: 'GET',
      dispatcher: this.dispatcher,
      headers: await this.headers('GET', {
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      }),
      signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    noteAuthResponse(this.options.auth, this.url.href, res.statusCode, res.headers);
    if (res.statusCode === 404 && sentSession) {
      throw new SessionExpiredError(
        `${this.description}: GET ${this.url.href} → 404: session ${sentSession} expired; a new session is needed`,
        this.url.href,
        sentSession,
        await readBodyExcerpt(res.body),
      );
    }
    if (res.statusCode === 404 || res.statusCode === 405 || res.statusCode === 406) {
      await res.body.dump();
      return undefined;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const excerpt = await readBodyExcerpt(res.body);
      throw new HttpError(
        `${this.description}: GET ${this.url.href} → ${res.statusCode}`,
        res.statusCode,
        this.url.href,
        excerpt,
      );
    }
    return res.body;
  }

  private openStandalone(): void {
    if (this.options.openStandaloneStream === false || this.standalone || this.state !== 'open')
      return;
    const standalone = new AbortController();
    this.standalone = standalone;
    // A stream that ended for good (its session expired, say) leaves room for the next one.
    void runStandaloneStream(
      this.host,
      AbortSignal.any([this.abort.signal, standalone.signal]),
    ).finally(() => {
      if (this.standalone === standalone) this.standalone = undefined;
    });
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    await this.notifying.flush(this.options.closeFlushMs ?? DEFAULT_CLOSE_FLUSH_MS);
    this.abort.abort();
    for (const controller of this.requestAborts) controller.abort();
    this.requestAborts.clear();
    this.responseStreams.clear();
    if (wasOpen && this._sessionId) {
      // Tell the server the session is over; 405 means it does not support that.
      try {
        const res = await request(this.url, {
          method: 'DELETE',
          dispatcher: this.dispatcher,
          headers: await this.headers('DELETE', {}),
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        });
        await res.body.dump();
      } catch {
        // The server is gone already.
      }
    }
    if (this.ownsDispatcher) await this.dispatcher.close().catch(() => {});
    this.onclose?.();
  }
}

import {
  AlreadyStartedError,
  ConnectionClosedError,
  DEFAULT_MAX_MESSAGE_BYTES,
  type HttpAuth,
  HttpError,
  type JsonRpcMessage,
  type MessageExtra,
  MessageTooLargeError,
  type StreamRetryPolicy,
  sleep,
  streamRetryDelay,
  type Transport,
  type TransportCapabilities,
  TransportError,
  UnauthorizedError,
} from '@mcpkit/jsonrpc';
import {
  authorizationOf,
  checkMaxJsonDepth,
  checkMaxMessageBytes,
  checkStreamRetryPolicy,
  checkTimerMs,
  DEFAULT_CLOSE_FLUSH_MS,
  dispatchJsonText,
  PendingSends,
  readBodyExcerpt,
  readSseStream,
} from '@mcpkit/jsonrpc/internal';
import { Agent, type Dispatcher } from 'undici';
import {
  CrossOriginError,
  checkSameOrigin,
  requestSameOrigin,
  type SameOriginInit,
  type SameOriginResponse,
} from './same-origin.js';

/** The shared policy of @mcpkit/jsonrpc; with 0 attempts a drop closes the transport at once. */
export type SseReconnectPolicy = StreamRetryPolicy;

/** How the event stream is re-opened after it drops. */
export const sseReconnectDefaults: Readonly<SseReconnectPolicy> = Object.freeze({
  initialDelayMs: 500,
  growthFactor: 2,
  maxDelayMs: 10_000,
  /** 0: a dropped stream closes the transport (pending requests fail at once). */
  maxAttempts: 2,
});

export interface SseTransportOptions {
  /** The event stream's URL (usually ending in `/sse`). */
  url: string | URL;
  /** Sent on the GET as well as on every POST. */
  headers?: Record<string, string>;
  auth?: HttpAuth;
  dispatcher?: Dispatcher;
  /** How long to wait for the `endpoint` event. Default 10 s. */
  endpointTimeoutMs?: number;
  reconnect?: Partial<SseReconnectPolicy>;
  onreconnect?: (event: { attempt: number; delayMs: number; reason: string }) => void;
  /**
   * Largest message (one event's data, in bytes) accepted. An event that grows past it is
   * caught while it arrives: the stream is cancelled and the transport closes. Default 64 MiB.
   */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and objects accepted in a message. Default 256 (`DEFAULT_MAX_JSON_DEPTH`). */
  maxJsonDepth?: number;
  name?: string;
  /**
   * How the transport waits between reconnection attempts. Default: `sleep` of
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

/**
 * Checks the numeric options (a `TypeError` naming the option and its range). Exported so
 * that a transport which may build an `SseTransport` later can refuse bad options at once.
 */
export function checkSseTransportOptions(options: Partial<SseTransportOptions>): void {
  const owner = 'SseTransport';
  checkMaxMessageBytes(owner, options.maxMessageBytes);
  checkMaxJsonDepth(owner, options.maxJsonDepth);
  checkTimerMs(owner, 'endpointTimeoutMs', options.endpointTimeoutMs);
  checkTimerMs(owner, 'closeFlushMs', options.closeFlushMs, { zero: true });
  checkStreamRetryPolicy(owner, { ...sseReconnectDefaults, ...options.reconnect });
}

// `legacyOnly` is `McpTransportCapabilities`' (in @mcpkit/protocol, which this package does
// not depend on): the object satisfies that interface structurally.
const capabilities: TransportCapabilities & { readonly legacyOnly: true } = Object.freeze({
  sendBeforeStart: false,
  serverToClientRequests: true,
  sessions: true,
  legacyOnly: true,
});

function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05): a GET opens an event stream whose
 * first `endpoint` event names where to POST messages; answers arrive on the stream.
 */
export class SseTransport implements Transport {
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

  private readonly options: SseTransportOptions;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly policy: SseReconnectPolicy;
  private readonly maxMessageBytes: number;
  private readonly endpointTimeoutMs: number;
  private readonly abort = new AbortController();
  /** Notification POSTs on their way: `close()` lets them finish first (`closeFlushMs`). */
  private readonly notifying = new PendingSends();
  private endpoint: URL | undefined;
  private endpointReady: Promise<URL> | undefined;
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(options: SseTransportOptions) {
    checkSseTransportOptions(options);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.endpointTimeoutMs = options.endpointTimeoutMs ?? 10_000;
    this.policy = { ...sseReconnectDefaults, ...options.reconnect };
    this.options = options;
    this.url = new URL(options.url);
    this.description = options.name
      ? `server "${options.name}"`
      : `${this.url.origin}${this.url.pathname}`;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000 });
    this.ownsDispatcher = options.dispatcher === undefined;
    this.httpVersion = this.ownsDispatcher ? '1.1' : undefined;
  }

  /** Where messages are posted (the session), once the server said so. */
  get sessionEndpoint(): string | undefined {
    return this.endpoint?.href;
  }

  async start(): Promise<void> {
    if (this.state !== 'new')
      throw new AlreadyStartedError(
        `${this.description}: start() may be called only once; create a new transport to reconnect`,
      );
    this.state = 'open';
    try {
      await this.open();
    } catch (error) {
      // close() ran while connecting (the state changed under the await): say so, rather
      // than pass on the abort's bare error.
      if ((this.state as string) === 'closed')
        throw new ConnectionClosedError(
          `${this.description}: closed while connecting to ${this.url.href}`,
          { cause: error },
        );
      await this.close();
      throw error;
    }
  }

  private async authHeaders(method: string, url: URL): Promise<Record<string, string>> {
    return {
      ...this.options.headers,
      ...(this.options.auth ? await this.options.auth.headers({ method, url: url.href }) : {}),
    };
  }

  /** Opens the stream and waits for its endpoint; the stream is then read in the background. */
  private async open(authRetries = 0): Promise<void> {
    const {
      res,
      url: streamUrl,
      sentHeaders,
    } = await this.request('GET', this.url, (headers) => ({
      headers: { ...headers, accept: 'text/event-stream' },
      headersTimeout: this.endpointTimeoutMs,
      bodyTimeout: 0,
    }));
    const auth = this.options.auth;
    if (
      (res.statusCode === 401 || res.statusCode === 403) &&
      auth &&
      authRetries < (auth.maxRetries ?? 1)
    ) {
      await res.body.dump();
      const retry = await auth.onUnauthorized({
        status: res.statusCode,
        wwwAuthenticate: header(res.headers, 'www-authenticate'),
        url: streamUrl.href,
        authorization: authorizationOf(sentHeaders),
        method: 'GET',
        dpop: sentHeaders.dpop,
        dpopNonce: header(res.headers, 'dpop-nonce'),
        retries: authRetries,
      });
      if (retry) return this.open(authRetries + 1);
    }
    if (res.statusCode === 401 || res.statusCode === 403) {
      const excerpt = await readBodyExcerpt(res.body);
      throw new UnauthorizedError(
        `${this.description}: GET ${streamUrl.href} → ${res.statusCode}; the server needs authorization`,
        res.statusCode,
        streamUrl.href,
        excerpt,
        header(res.headers, 'www-authenticate'),
      );
    }
    if (res.statusCode !== 200) {
      const excerpt = await readBodyExcerpt(res.body);
      throw new HttpError(
        `${this.description}: GET ${streamUrl.href} → ${res.statusCode}`,
        res.statusCode,
        streamUrl.href,
        excerpt,
      );
    }
    let resolveEndpoint!: (url: URL) => void;
    let rejectEndpoint!: (error: Error) => void;
    this.endpointReady = new Promise<URL>((resolve, reject) => {
      resolveEndpoint = resolve;
      rejectEndpoint = reject;
    });
    this.endpointReady.catch(() => {});
    const onevent = (event: { event: string; data: string }) => {
      if (event.event === 'endpoint') {
        let url: URL;
        try {
          url = new URL(event.data.trim(), streamUrl);
        } catch {
          rejectEndpoint(
            new TransportError(
              `${this.description}: the endpoint event is not a URL: ${event.data.slice(0, 100)}`,
            ),
          );
          return;
        }
        try {
          checkSameOrigin(this.description, this.url, url, 'the endpoint event');
        } catch (error) {
          rejectEndpoint(error as Error);
          return;
        }
        this.endpoint = url;
        resolveEndpoint(url);
        return;
      }
      if (event.event !== 'message') return;
      const parsed = dispatchJsonText(
        event.data,
        this.description,
        (m) => this.onmessage?.(m),
        (e) => this.onerror?.(e),
        undefined,
        this.options.maxJsonDepth,
      );
      // A stream that delivers is healthy again: a later drop starts counting afresh.
      if (parsed) this.attempts = 0;
    };
    const limit = this.maxMessageBytes;
    const reading = readSseStream(res.body, {
      maxEventBytes: limit,
      onevent,
      tooLarge: (bytes) =>
        new MessageTooLargeError(
          `${this.description}: an event on GET ${this.url.href} exceeds the ${limit}-byte message limit (${bytes} bytes so far); the stream was closed`,
          limit,
          { serverName: this.options.name, url: this.url.href },
        ),
    });
    reading.then(
      () => this.dropped('the event stream ended'),
      (error: unknown) => {
        // An oversized event would only come again on a new stream: close with it.
        if (MessageTooLargeError.isInstance(error)) {
          rejectEndpoint(error);
          void this.closeWith(error);
          return;
        }
        void this.dropped((error as Error).message);
      },
    );
    const timeoutMs = this.endpointTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TransportError(
              `${this.description}: no endpoint event within ${timeoutMs} ms from ${this.url.href}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      await Promise.race([
        this.endpointReady,
        timeout,
        reading.then(() =>
          Promise.reject(
            new ConnectionClosedError(
              `${this.description}: the event stream ended before the endpoint event`,
            ),
          ),
        ),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private reconnecting = false;
  private attempts = 0;

  private async dropped(reason: string): Promise<void> {
    if (this.state !== 'open' || this.reconnecting || !this.endpoint) return;
    this.reconnecting = true;
    this.endpoint = undefined;
    while (this.state === 'open' && this.attempts < this.policy.maxAttempts) {
      this.attempts++;
      const delayMs = streamRetryDelay(this.policy, this.attempts);
      this.options.onreconnect?.({ attempt: this.attempts, delayMs, reason });
      // close() aborts the wait: no timer outlives the transport.
      await (this.options.sleep ?? sleep)(delayMs, this.abort.signal).catch(() => {});
      if (this.state !== 'open') return;
      try {
        await this.open();
        this.reconnecting = false;
        return;
      } catch (error) {
        // A server that now points elsewhere is not one to keep retrying: close with why.
        if (CrossOriginError.isInstance(error)) {
          this.reconnecting = false;
          await this.closeWith(error);
          return;
        }
        reason = (error as Error).message;
        // The server is not there at all: no point in waiting for more attempts.
        const code = ((error as { cause?: { code?: string } }).cause?.code ?? '') as string;
        if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') break;
      }
    }
    this.reconnecting = false;
    if (this.state === 'open')
      await this.closeWith(
        new ConnectionClosedError(`${this.description}: event stream lost: ${reason}`),
      );
  }

  /** One request that stays on the stream's origin (see same-origin.ts). */
  private request(
    method: 'GET' | 'POST',
    start: URL,
    init: SameOriginInit,
  ): Promise<SameOriginResponse> {
    return requestSameOrigin(
      {
        description: this.description,
        stream: this.url,
        dispatcher: this.dispatcher,
        signal: this.abort.signal,
        auth: this.options.auth,
        headers: (m, url) => this.authHeaders(m, url),
      },
      method,
      start,
      init,
    );
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.state !== 'open')
      throw new ConnectionClosedError(
        `${this.description}: cannot send, the transport is ${this.state}`,
      );
    const endpoint = this.endpoint ?? (await this.endpointReady);
    if (!endpoint) throw new ConnectionClosedError(`${this.description}: no endpoint to send to`);
    const posted = this.post(endpoint, message, 0);
    // A notification's POST is all there is of it: close() lets it finish (closeFlushMs).
    if (!('id' in message) && 'method' in message) this.notifying.track(posted);
    await posted;
  }

  private async post(endpoint: URL, message: JsonRpcMessage, authRetries: number): Promise<void> {
    const { res, url, sentHeaders } = await this.request('POST', endpoint, (headers) => ({
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(message),
    }));
    const status = res.statusCode;
    let excerpt = '';
    // Only a short excerpt of an error body is read: a hostile server may send gigabytes.
    if (status >= 300) excerpt = await readBodyExcerpt(res.body);
    else await res.body.dump();
    const auth = this.options.auth;
    if ((status === 401 || status === 403) && auth && authRetries < (auth.maxRetries ?? 1)) {
      const retry = await auth.onUnauthorized({
        status,
        wwwAuthenticate: header(res.headers, 'www-authenticate'),
        url: url.href,
        authorization: authorizationOf(sentHeaders),
        method: 'POST',
        dpop: sentHeaders.dpop,
        dpopNonce: header(res.headers, 'dpop-nonce'),
        retries: authRetries,
      });
      if (retry) return this.post(endpoint, message, authRetries + 1);
    }
    if (status === 401 || status === 403) {
      throw new UnauthorizedError(
        `${this.description}: POST ${url.href} → ${status}; the server needs authorization`,
        status,
        url.href,
        excerpt,
        header(res.headers, 'www-authenticate'),
      );
    }
    if (status < 200 || status >= 300) {
      throw new HttpError(
        `${this.description}: POST ${url.href} → ${status}${excerpt ? `: ${excerpt.slice(0, 200)}` : ''}`,
        status,
        url.href,
        excerpt,
      );
    }
  }

  async close(): Promise<void> {
    await this.closeWith(undefined, true);
  }

  /** `flush`: a close asked for lets notifications already being posted finish first. */
  private async closeWith(cause: Error | undefined, flush = false): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (flush) await this.notifying.flush(this.options.closeFlushMs ?? DEFAULT_CLOSE_FLUSH_MS);
    this.abort.abort();
    if (this.ownsDispatcher) await this.dispatcher.close().catch(() => {});
    this.onclose?.(cause);
  }
}

import {
  HttpError,
  type JsonRpcMessage,
  type MessageExtra,
  type Transport,
  type TransportSendOptions,
} from '@mcpkit/jsonrpc';
import {
  checkSseTransportOptions,
  SseTransport,
  type SseTransportOptions,
} from '@mcpkit/transport-sse';
import {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from '@mcpkit/transport-streamable-http';

/**
 * Either transport: Streamable HTTP has the MCP members of `McpTransport` (@mcpkit/protocol,
 * which this package does not depend on), SSE has none; each is called only when present.
 */
type InnerTransport = Transport & {
  readonly url: URL;
  readonly eraKey?: string;
  readonly httpVersion?: string | undefined;
  setProtocolVersion?(version: string | undefined): void;
  setMessageHeaders?(
    headers: ((message: JsonRpcMessage) => Record<string, string> | undefined) | undefined,
  ): void;
  resetSession?(): void;
};

export interface HttpFallbackOptions extends StreamableHttpTransportOptions {
  /** Options for the legacy transport, if it is chosen (url, headers, auth, name, maxMessageBytes and maxJsonDepth default to the above). */
  sse?: Partial<SseTransportOptions>;
  /** Told which transport was chosen, and why. */
  onchoice?: (choice: { transport: 'streamable-http' | 'sse'; reason: string }) => void;
}

/** Statuses of the first POST that mean "this is an old HTTP+SSE server". */
const LEGACY_STATUSES = new Set([400, 404, 405]);

/**
 * Connects to a URL the way the specification's backward-compatibility section says:
 * Streamable HTTP first; if the `initialize` POST is answered with 400, 404 or 405, the
 * legacy HTTP+SSE transport (a GET event stream) on the same URL. `chosen` tells which.
 */
export class HttpFallbackTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly description: string;
  private inner: InnerTransport;
  private decided = false;
  private _chosen: 'streamable-http' | 'sse' | undefined;

  constructor(private readonly options: HttpFallbackOptions) {
    // The legacy transport is built only if the server turns out to be old: its options
    // are checked now, not at the first message.
    if (options.sse) checkSseTransportOptions(options.sse);
    this.inner = this.wire(new StreamableHttpTransport(options));
    this.description = this.inner.description ?? String(options.url);
  }

  /** `undefined` until the first message decided it. */
  get chosen(): 'streamable-http' | 'sse' | undefined {
    return this._chosen;
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get eraKey(): string | undefined {
    return this.inner.eraKey;
  }

  /** The server's URL, as the chosen transport holds it (`server.address` of a client span). */
  get url(): URL {
    return this.inner.url;
  }

  /** The HTTP version of the chosen transport, when it knows it (`network.protocol.version`). */
  get httpVersion(): string | undefined {
    return this.inner.httpVersion;
  }

  get capabilities() {
    return this.inner.capabilities;
  }

  private wire<T extends Transport>(transport: T): T {
    transport.onmessage = (m, extra) => this.onmessage?.(m, extra);
    transport.onerror = (e) => this.onerror?.(e);
    transport.onclose = (cause) => this.onclose?.(cause);
    return transport;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    // Only the `initialize` POST decides: a 2026-07-28 probe (`server/discover`) that a
    // 2025 server rejects says nothing about SSE, and the client falls back to initialize.
    if (this.decided || !('method' in message) || message.method !== 'initialize')
      return this.inner.send(message, options);
    try {
      await this.inner.send(message, options);
      this.choose('streamable-http', 'the server accepted a Streamable HTTP POST');
    } catch (error) {
      if (!(HttpError.isInstance(error) && LEGACY_STATUSES.has(error.status))) throw error;
      const streamable = this.inner;
      streamable.onclose = undefined;
      await streamable.close();
      const o = this.options;
      const sse = new SseTransport({
        url: o.url,
        ...(o.headers ? { headers: o.headers } : {}),
        ...(o.auth ? { auth: o.auth } : {}),
        ...(o.name ? { name: o.name } : {}),
        // The same message limit holds whichever transport the server turns out to need.
        ...(o.maxMessageBytes !== undefined ? { maxMessageBytes: o.maxMessageBytes } : {}),
        ...(o.maxJsonDepth !== undefined ? { maxJsonDepth: o.maxJsonDepth } : {}),
        ...o.sse,
      });
      this.inner = this.wire(sse);
      await sse.start();
      this.choose('sse', `the Streamable HTTP POST was answered with ${error.status}`);
      await sse.send(message);
    }
  }

  private choose(transport: 'streamable-http' | 'sse', reason: string): void {
    this.decided = true;
    this._chosen = transport;
    this.options.onchoice?.({ transport, reason });
  }

  setProtocolVersion(version: string | undefined): void {
    this.inner.setProtocolVersion?.(version);
  }

  setMessageHeaders(
    headers: ((message: JsonRpcMessage) => Record<string, string> | undefined) | undefined,
  ): void {
    this.inner.setMessageHeaders?.(headers);
  }

  resetSession(): void {
    this.inner.resetSession?.();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

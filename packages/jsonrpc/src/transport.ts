import type { JsonRpcId, JsonRpcMessage } from './messages.js';

/**
 * A transport's `send` may return this shared, already-resolved promise to say "accepted
 * synchronously". The peer then skips attaching a failure handler: one promise and one
 * closure fewer per message on the hot path.
 */
export const SENT: Promise<void> = Promise.resolve();

/** Per-send options a transport may use (HTTP transports route by them). */
export interface TransportSendOptions {
  /** The incoming request this message answers or belongs to. */
  relatedRequestId?: JsonRpcId;
  /** Aborts a send that has not completed. */
  signal?: AbortSignal;
  /** HTTP transports: headers for this message's own request (`RequestOptions.headers`). */
  headers?: Readonly<Record<string, string>>;
}

/** What a transport knows about an incoming message beyond the message itself. */
export interface MessageExtra {
  /** HTTP transports: the request this message arrived on the response stream of. */
  relatedRequestId?: JsonRpcId;
  /** HTTP server transports: who sent the request, as the listener verified it. */
  authInfo?: AuthInfo;
  /**
   * HTTP server transports: the W3C trace context headers (`traceparent`, `tracestate`,
   * `baggage`) of the HTTP request, when it carried a `traceparent`.
   */
  traceHeaders?: Readonly<Record<string, string>>;
  /**
   * HTTP server transports: the HTTP request the message arrived on (Node's
   * `IncomingMessage` fits), read only by an instrumentation that is on (`client.address`,
   * `client.port`, `network.protocol.version`).
   */
  httpPeer?: HttpPeer;
}

/** What an instrumentation reads of the HTTP request a message arrived on. */
export interface HttpPeer {
  /** `1.1`, `2.0`, as the HTTP parser reported it. */
  readonly httpVersion: string;
  readonly socket: {
    readonly remoteAddress?: string | undefined;
    readonly remotePort?: number | undefined;
  };
}

/**
 * The verified identity behind an incoming request, as an HTTP listener established it
 * (a static bearer token, a JWT checked against its issuer's keys, an introspected token).
 * Facts only; what the caller may do is the application's policy.
 */
export interface AuthInfo {
  /** How the caller was verified. */
  readonly kind: 'static-token' | 'jwt' | 'introspection' | (string & {});
  /** Who the caller is: the token's `sub`, or the name given to a static token. */
  readonly subject: string | undefined;
  /** The OAuth client the token was issued to (`client_id`/`azp`), when known. */
  readonly clientId: string | undefined;
  /** The token's scopes (`scope`, split on spaces). */
  readonly scopes: readonly string[];
  /** When the token expires, in seconds since the epoch, when known. */
  readonly expiresAt: number | undefined;
  /** The verified claims (JWT) or introspection response: groups and the like, for policy. */
  readonly claims: Readonly<Record<string, unknown>>;
  /**
   * The bearer token itself, for a token exchange on the caller's behalf (RFC 8693). Never
   * log it, never pass it to another server unchanged.
   */
  readonly token: string;
}

/** Read-only facts about a transport a caller may branch on. */
export interface TransportCapabilities {
  /** Messages may be sent before `start()` resolves. */
  readonly sendBeforeStart?: boolean;
  /** The server can send requests to the client at any time. */
  readonly serverToClientRequests?: boolean;
  /** The transport keeps a session that survives individual requests. */
  readonly sessions?: boolean;
}

/**
 * A bidirectional pipe of JSON-RPC messages. A transport validates envelopes of what it
 * receives (see `dispatchParsed`) and knows nothing of MCP: the members an MCP client uses
 * (era key, protocol version, per-message headers, session reset) are `McpTransport`'s,
 * in `@mcpkit/protocol`.
 *
 * Lifecycle: `start()` once; `send()` any number of times; `close()` is idempotent and
 * calls `onclose` exactly once, whichever side closed. After `onclose`, `send()` rejects.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void>;
  close(): Promise<void>;

  /** A valid message arrived. */
  onmessage?: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  /** A non-fatal problem: unparseable bytes, an invalid message, a failed background stream. */
  onerror?: ((error: Error) => void) | undefined;
  /** The transport closed; `cause` says why when it was not a local `close()`. */
  onclose?: ((cause?: Error) => void) | undefined;

  /** A short description for error messages, e.g. `stdio "npx server-x"`. */
  readonly description?: string;
  readonly capabilities?: TransportCapabilities;
  /** Session id, for transports that have sessions. */
  readonly sessionId?: string | undefined;
  /**
   * After `onclose`: the request `id` sent on this transport is known never to have reached
   * the other side (its write failed with nothing written). Absent, or false, when unknown.
   */
  wasUnsent?(id: JsonRpcId): boolean;
}

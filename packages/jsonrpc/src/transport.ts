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
}

/** What a transport knows about an incoming message beyond the message itself. */
export interface MessageExtra {
  /** HTTP transports: the request this message arrived on the response stream of. */
  relatedRequestId?: JsonRpcId;
}

/** Read-only facts about a transport a caller may branch on. */
export interface TransportCapabilities {
  /** Messages may be sent before `start()` resolves. */
  readonly sendBeforeStart?: boolean;
  /** The server can send requests to the client at any time. */
  readonly serverToClientRequests?: boolean;
  /** The transport keeps a session that survives individual requests. */
  readonly sessions?: boolean;
  /**
   * The transport exists only in handshake-era revisions (legacy HTTP+SSE): a client
   * does not probe it for 2026-07-28.
   */
  readonly legacyOnly?: boolean;
}

/**
 * A bidirectional pipe of JSON-RPC messages. A transport validates envelopes of what it
 * receives (see `dispatchParsed`) and knows nothing of MCP methods.
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
  /**
   * Where a client may cache what it learned of the server's era: the same key means the
   * same server (an HTTP endpoint). Absent when the answer lives only as long as the
   * connection (a stdio process).
   */
  readonly eraKey?: string;
  /** Session id, for transports that have sessions. */
  readonly sessionId?: string | undefined;
  /**
   * Told the protocol version in force (HTTP transports send it as a header and pick the
   * binding by it); `undefined` while none is (an `initialize` after a failed probe).
   */
  setProtocolVersion?(version: string | undefined): void;
  /**
   * HTTP transports: extra headers for each outgoing message, e.g. the 2026-07-28
   * `Mcp-Param-*` headers a client derives from a tool's input schema.
   */
  setMessageHeaders?(
    headers: ((message: JsonRpcMessage) => Record<string, string> | undefined) | undefined,
  ): void;
  /** Forgets the session (after `SessionExpiredError`), so that a new `initialize` starts a fresh one. */
  resetSession?(): void;
}

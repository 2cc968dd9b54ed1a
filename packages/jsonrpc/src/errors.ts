import type { JsonRpcId } from './messages.js';

/**
 * Error model shared by every mcpkit package.
 *
 * Local errors (timeouts, closed connections, oversized messages, aborts) carry a
 * string `code` and never cross the wire. Wire errors (`RpcError`) carry the numeric
 * JSON-RPC code and `data` exactly as the peer sent them.
 */

// Every instance carries the base brand plus one brand per class on its constructor chain,
// registered with `Symbol.for` so that duplicated copies of a package (two versions in one
// tree, a bundle beside node_modules) still recognise each other's errors.
const BRAND = Symbol.for('mcpkit.error');
const brands = new WeakMap<object, symbol>();

/**
 * The brand of one error class: `mcpkit.error:<brand>` where `<brand>` is the class's own
 * static `brand` when it declares one, else its name. Derived per class (not inherited),
 * so a subclass that declares nothing still gets a brand of its own. Every mcpkit class
 * declares `<package>.<Class>` (`@mcpkit/config.ServerNotEnabledError`): two packages'
 * classes of one name never answer `isInstance` for each other (the bare name collided).
 */
function brandOf(ctor: object): symbol {
  let brand = brands.get(ctor);
  if (brand === undefined) {
    const declared = Object.hasOwn(ctor, 'brand') ? (ctor as { brand?: unknown }).brand : undefined;
    const id = typeof declared === 'string' ? declared : (ctor as { name: string }).name;
    brand = Symbol.for(`mcpkit.error:${id}`);
    brands.set(ctor, brand);
  }
  return brand;
}

/**
 * String codes of `@mcpkit/jsonrpc`'s local errors. Stable: match on these, not on messages.
 * Every other package has its own constant object (`ClientErrorCode`, `StdioErrorCode`, …).
 */
export const ErrorCode = {
  Timeout: 'MCPKIT_TIMEOUT',
  ConnectionClosed: 'MCPKIT_CONNECTION_CLOSED',
  MessageTooLarge: 'MCPKIT_MESSAGE_TOO_LARGE',
  /** JSON from a peer nests arrays and objects deeper than the limit (`JsonTooDeepError`). */
  JsonTooDeep: 'MCPKIT_JSON_TOO_DEEP',
  Aborted: 'MCPKIT_ABORTED',
  Parse: 'MCPKIT_PARSE_ERROR',
  InvalidMessage: 'MCPKIT_INVALID_MESSAGE',
  Rpc: 'MCPKIT_RPC_ERROR',
  Transport: 'MCPKIT_TRANSPORT_ERROR',
  NotConnected: 'MCPKIT_NOT_CONNECTED',
  Http: 'MCPKIT_HTTP_ERROR',
  SessionExpired: 'MCPKIT_SESSION_EXPIRED',
  Unauthorized: 'MCPKIT_UNAUTHORIZED',
  /** The peer broke the protocol: an answer to no request, an invalid response, … */
  Protocol: 'MCPKIT_PROTOCOL_ERROR',
  ResponseLost: 'MCPKIT_RESPONSE_LOST',
  /** `start()` or `connect()` called a second time (`AlreadyStartedError`). */
  AlreadyStarted: 'MCPKIT_ALREADY_STARTED',
  /** One of our own request or notification handlers threw (`HandlerError`): a host bug. */
  HandlerFailed: 'MCPKIT_HANDLER_FAILED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** JSON-RPC 2.0 and MCP numeric error codes. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

export interface McpkitErrorOptions {
  cause?: unknown;
}

/**
 * Base class of every error mcpkit throws. Check with `McpkitError.isInstance(e)`, or
 * `TimeoutError.isInstance(e)` for one class: true for that class and its subclasses only,
 * also across duplicated package copies (unlike `instanceof`).
 */
export class McpkitError extends Error {
  readonly code: string;
  override readonly name: string = 'McpkitError';

  constructor(code: string, message: string, options?: McpkitErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
    for (
      let ctor: object | null = new.target;
      ctor !== null && ctor !== McpkitError && ctor !== Function.prototype;
      ctor = Object.getPrototypeOf(ctor)
    )
      Object.defineProperty(this, brandOf(ctor), { value: true });
  }

  /** True for an instance of the class it is called on (or a subclass), from any package copy. */
  static isInstance<T extends abstract new (...args: never[]) => McpkitError>(
    this: T,
    value: unknown,
  ): value is InstanceType<T> {
    if (typeof value !== 'object' || value === null) return false;
    const own = value as Record<symbol, unknown>;
    if (own[BRAND] !== true) return false;
    // biome-ignore lint/complexity/noThisInStatic: the class it is called on is the brand to check
    return (this as unknown) === McpkitError || own[brandOf(this)] === true;
  }
}

/** A request got no answer within its time budget. */
export class TimeoutError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.TimeoutError';
  override readonly name: string = 'TimeoutError';
  readonly timeoutMs: number;
  /**
   * The request option whose budget ran out, when a request's own did: `timeoutMs` (the
   * time without an answer or progress) or `maxTotalTimeoutMs` (the whole request). A fact
   * for the application to word ("raise …" in its own settings), never advice here.
   */
  readonly option: 'timeoutMs' | 'maxTotalTimeoutMs' | undefined;
  constructor(
    message: string,
    timeoutMs: number,
    options?: McpkitErrorOptions & { option?: 'timeoutMs' | 'maxTotalTimeoutMs' },
  ) {
    super(ErrorCode.Timeout, message, options);
    this.timeoutMs = timeoutMs;
    this.option = options?.option;
  }
}

/** The connection closed (or was never open) while a request was pending. */
export class ConnectionClosedError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.ConnectionClosedError';
  override readonly name: string = 'ConnectionClosedError';
  /**
   * The request is known never to have reached the other side: the connection was closed
   * before it was sent, or the transport saw its write fail with nothing written. Sending
   * it again (on a new connection) cannot run it twice. `false` means unknown, not "sent".
   */
  readonly unsent: boolean;
  constructor(message: string, options?: McpkitErrorOptions & { code?: string; unsent?: boolean }) {
    super(options?.code ?? ErrorCode.ConnectionClosed, message, options);
    this.unsent = options?.unsent ?? false;
  }
}

/**
 * A call before `connect()` finished, or after `close()`. A kind of `ConnectionClosedError`
 * (code `MCPKIT_NOT_CONNECTED`), so code that handles a closed connection handles it too.
 */
export class NotConnectedError extends ConnectionClosedError {
  static override readonly brand: string = '@mcpkit/jsonrpc.NotConnectedError';
  override readonly name: string = 'NotConnectedError';
  constructor(message: string, options?: McpkitErrorOptions) {
    super(message, { ...options, code: ErrorCode.NotConnected });
  }
}

/** A single message (or an SSE event, or a response body) exceeded the configured maximum size. */
export class MessageTooLargeError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.MessageTooLargeError';
  override readonly name: string = 'MessageTooLargeError';
  readonly limitBytes: number;
  /** The id of the dropped message when it could be read from its first or last bytes. */
  readonly id: string | number | null;
  /**
   * Whether the dropped message was a request (the peer answers it with an error) or a
   * response (it fails the request it answers), when its bytes showed it.
   */
  readonly kind: 'request' | 'response' | undefined;
  /** The server's name, when the transport was given one. */
  readonly serverName: string | undefined;
  /** The URL the oversized message came from (HTTP transports). */
  readonly url: string | undefined;
  constructor(
    message: string,
    limitBytes: number,
    options?: McpkitErrorOptions & {
      id?: string | number | null;
      kind?: 'request' | 'response' | undefined;
      serverName?: string | undefined;
      url?: string | undefined;
    },
  ) {
    super(ErrorCode.MessageTooLarge, message, options);
    this.limitBytes = limitBytes;
    this.id = options?.id ?? null;
    this.kind = options?.kind;
    this.serverName = options?.serverName;
    this.url = options?.url;
  }
}

/**
 * JSON from a peer (a message, or a value in one) nests arrays and objects deeper than the
 * limit (`maxJsonDepth`): refused before anything walks it, so that deep data fails one
 * request, not the process with a `RangeError`.
 */
export class JsonTooDeepError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.JsonTooDeepError';
  override readonly name: string = 'JsonTooDeepError';
  /** The limit, in levels of arrays and objects (the message's own object is level 1). */
  readonly maxDepth: number;
  /** How deep it nests (a walk that stops early reports the first depth past the limit). */
  readonly depth: number;
  /** The message's id, when its first or last bytes show it (as for a message too large). */
  readonly id: string | number | null;
  /** A request or a response, when its bytes show it. */
  readonly kind: 'request' | 'response' | undefined;
  /** The server's name, when the one that wraps it knows it. */
  readonly serverName: string | undefined;
  constructor(
    message: string,
    maxDepth: number,
    depth: number,
    options?: McpkitErrorOptions & {
      id?: string | number | null;
      kind?: 'request' | 'response' | undefined;
      serverName?: string | undefined;
    },
  ) {
    super(ErrorCode.JsonTooDeep, message, options);
    this.maxDepth = maxDepth;
    this.depth = depth;
    this.id = options?.id ?? null;
    this.kind = options?.kind;
    this.serverName = options?.serverName;
  }
}

/** An operation was aborted without an abort reason of its own. */
export class AbortedError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.AbortedError';
  override readonly name: string = 'AbortedError';
  constructor(message: string, options?: McpkitErrorOptions) {
    super(ErrorCode.Aborted, message, options);
  }
}

/** `start()` (a transport) or `connect()` (a client) was called a second time: a bug in the caller. */
export class AlreadyStartedError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.AlreadyStartedError';
  override readonly name: string = 'AlreadyStartedError';
  constructor(message: string, options?: McpkitErrorOptions) {
    super(ErrorCode.AlreadyStarted, message, options);
  }
}

/**
 * A handler registered on this side (for a request or notification from the peer) threw or
 * rejected. The peer was told only "Internal error"; `cause` is what the handler threw.
 */
export class HandlerError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.HandlerError';
  override readonly name: string = 'HandlerError';
  /** Which handler failed, e.g. `notifications/message` or `request 7`. */
  readonly where: string;
  constructor(message: string, where: string, options?: McpkitErrorOptions) {
    super(ErrorCode.HandlerFailed, message, options);
    this.where = where;
  }
}

/** Bytes that are not JSON arrived where a message was expected. */
export class ParseError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.ParseError';
  override readonly name: string = 'ParseError';
  /** The start of the offending text (at most 200 characters). */
  readonly excerpt: string;
  constructor(message: string, excerpt: string, options?: McpkitErrorOptions) {
    super(ErrorCode.Parse, message, options);
    this.excerpt = excerpt;
  }
}

/** Valid JSON that is not a JSON-RPC 2.0 message. */
export class InvalidMessageError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.InvalidMessageError';
  override readonly name: string = 'InvalidMessageError';
  /** The id of the offending message when it had a usable one (so it can be answered). */
  readonly id: string | number | null;
  constructor(message: string, id: string | number | null, options?: McpkitErrorOptions) {
    super(ErrorCode.InvalidMessage, message, options);
    this.id = id;
  }
}

/** A transport-level failure (I/O, HTTP, process). Transports subclass or use it directly. */
export class TransportError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.TransportError';
  override readonly name: string = 'TransportError';
  constructor(message: string, options?: McpkitErrorOptions & { code?: string }) {
    super(options?.code ?? ErrorCode.Transport, message, options);
  }
}

/**
 * The stream that was to carry a response broke before it did, and cannot be resumed
 * (2026-07-28 removed resumption). The request may or may not have taken effect; the
 * revision asks clients to re-issue it under a new id.
 */
export class ResponseLostError extends TransportError {
  static override readonly brand: string = '@mcpkit/jsonrpc.ResponseLostError';
  override readonly name: string = 'ResponseLostError';
  readonly requestId: JsonRpcId;
  constructor(message: string, requestId: JsonRpcId, options?: McpkitErrorOptions) {
    super(message, { ...options, code: ErrorCode.ResponseLost });
    this.requestId = requestId;
  }
}

/** A JSON-RPC error response from the peer. Keeps the wire code and data. */
export class RpcError extends McpkitError {
  static readonly brand: string = '@mcpkit/jsonrpc.RpcError';
  override readonly name: string = 'RpcError';
  /** The numeric JSON-RPC error code the peer sent. */
  readonly rpcCode: number;
  readonly data: unknown;
  /** The message exactly as the peer sent it. */
  readonly rpcMessage: string;
  /** Where it happened, e.g. `server "x": "tools/call" failed` (the message's prefix). */
  readonly context: string | undefined;
  constructor(rpcCode: number, rpcMessage: string, data?: unknown, context?: string) {
    super(ErrorCode.Rpc, context ? `${context}: ${rpcMessage} (${rpcCode})` : rpcMessage);
    this.context = context;
    this.rpcCode = rpcCode;
    this.rpcMessage = rpcMessage;
    this.data = data;
  }
  /** The `error` object to put on the wire. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.rpcMessage }
      : { code: this.rpcCode, message: this.rpcMessage, data: this.data };
  }
}

/** An HTTP exchange answered with an unexpected status. */
export class HttpError extends TransportError {
  static override readonly brand: string = '@mcpkit/jsonrpc.HttpError';
  override readonly name: string = 'HttpError';
  readonly status: number;
  readonly url: string;
  /** The start of the response body: at most `MAX_ERROR_BODY_BYTES` (4 KiB) were read. */
  readonly bodyExcerpt: string;
  constructor(
    message: string,
    status: number,
    url: string,
    bodyExcerpt: string,
    options?: McpkitErrorOptions & { code?: string },
  ) {
    super(message, { ...options, code: options?.code ?? ErrorCode.Http });
    this.status = status;
    this.url = url;
    this.bodyExcerpt = bodyExcerpt;
  }
}

/** 401/403 that the auth layer could not (or was not there to) fix: the server needs authorization. */
export class UnauthorizedError extends HttpError {
  static override readonly brand: string = '@mcpkit/jsonrpc.UnauthorizedError';
  override readonly name: string = 'UnauthorizedError';
  readonly wwwAuthenticate: string | undefined;
  constructor(
    message: string,
    status: number,
    url: string,
    bodyExcerpt: string,
    wwwAuthenticate: string | undefined,
  ) {
    super(message, status, url, bodyExcerpt, { code: ErrorCode.Unauthorized });
    this.wwwAuthenticate = wwwAuthenticate;
  }
}

/** The server no longer knows our session (404 to a request that carried a session id). */
export class SessionExpiredError extends HttpError {
  static override readonly brand: string = '@mcpkit/jsonrpc.SessionExpiredError';
  override readonly name: string = 'SessionExpiredError';
  readonly sessionId: string;
  constructor(message: string, url: string, sessionId: string, bodyExcerpt: string) {
    super(message, 404, url, bodyExcerpt, { code: ErrorCode.SessionExpired });
    this.sessionId = sessionId;
  }
}

import { McpkitError, type McpkitErrorOptions, RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import { McpErrorCode } from '@mcpkit/protocol';

/** String codes of the server's local errors (they never cross the wire as such). */
export const ServerErrorCode = {
  /** A handler asked for something the connection cannot do (a server→client request in the 2026-07-28 era). */
  NotSupported: 'MCPKIT_SERVER_NOT_SUPPORTED',
  /** A name or URI was registered twice. */
  Duplicate: 'MCPKIT_SERVER_DUPLICATE',
  /** The server or the binding is closed. */
  Closed: 'MCPKIT_SERVER_CLOSED',
} as const;
export type ServerErrorCode = (typeof ServerErrorCode)[keyof typeof ServerErrorCode];

/** A local error of `@mcpkit/server`: misuse of the API, or an operation the connection cannot carry. */
export class McpServerError extends McpkitError {
  static readonly brand: string = '@mcpkit/server.McpServerError';
  override readonly name: string = 'McpServerError';
  constructor(code: ServerErrorCode, message: string, options?: McpkitErrorOptions) {
    super(code, message, options);
  }
}

/** -32602 Invalid params, with `data` for the client. */
export function invalidParams(message: string, data?: unknown): RpcError {
  return new RpcError(RpcErrorCode.InvalidParams, message, data);
}

/** -32601 Method not found. */
export function methodNotFound(method: string): RpcError {
  return new RpcError(RpcErrorCode.MethodNotFound, `Method not found: ${method}`);
}

/** -32021: the request needs a client capability the client did not declare. */
export function missingCapability(
  what: string,
  requiredCapabilities: Record<string, unknown>,
): RpcError {
  return new RpcError(
    McpErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${what} needs ${Object.keys(requiredCapabilities).join(', ')}; declare it in the client capabilities`,
    { requiredCapabilities },
  );
}

/** -32022 with the versions this server speaks. */
export function unsupportedVersion(requested: string, supported: readonly string[]): RpcError {
  return new RpcError(
    McpErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${JSON.stringify(requested)}; this server speaks ${supported.join(', ')}`,
    { supported: [...supported], requested },
  );
}

/** -32020: HTTP headers that disagree with the body (2026-07-28 Streamable HTTP). */
export function headerMismatch(message: string): RpcError {
  return new RpcError(McpErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

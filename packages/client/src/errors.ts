import { McpkitError, RpcError } from '@mcpkit/jsonrpc';
import { McpErrorCode } from '@mcpkit/protocol';

/** Codes of the errors `@mcpkit/client` throws (their `code`). Stable: match on these. */
export const ClientErrorCode = {
  /** No protocol version both sides speak (`UnsupportedProtocolVersionError`). */
  UnsupportedProtocolVersion: 'MCPKIT_UNSUPPORTED_PROTOCOL_VERSION',
  /** A server's result did not match the protocol schema (`InvalidResultError`). */
  InvalidResult: 'MCPKIT_INVALID_RESULT',
  /** A tool's structured content did not match its output schema (`OutputSchemaError`). */
  OutputSchema: 'MCPKIT_OUTPUT_SCHEMA',
  /** The server does not offer what was asked of it (`UnsupportedByServerError`). */
  UnsupportedByServer: 'MCPKIT_UNSUPPORTED_BY_SERVER',
  /** A server returned the same pagination cursor twice (`RepeatedCursorError`). */
  RepeatedCursor: 'MCPKIT_REPEATED_CURSOR',
  /** A configured limit was reached, e.g. maxPages (`LimitExceededError`). */
  LimitExceeded: 'MCPKIT_LIMIT_EXCEEDED',
  /** The server sent a request this client has no handler for (`MissingHandlerError`). */
  MissingHandler: 'MCPKIT_MISSING_HANDLER',
  /** A tool in the server's list was left out as unusable (`InvalidToolError`). */
  InvalidTool: 'MCPKIT_INVALID_TOOL',
  /** A task of the tasks extension ended without a result: cancelled or gone (`TaskEndedError`). */
  TaskEnded: 'MCPKIT_TASK_ENDED',
} as const;
export type ClientErrorCode = (typeof ClientErrorCode)[keyof typeof ClientErrorCode];

/**
 * No protocol version both sides speak: the server chose one this client does not
 * (`initialize`), or listed only versions it does not (`-32022` with `data.supported`).
 */
export class UnsupportedProtocolVersionError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.UnsupportedProtocolVersionError';
  override readonly name = 'UnsupportedProtocolVersionError';
  /** The version the server chose (`initialize`), if it chose one. */
  readonly serverVersion: string | undefined;
  /** The versions this client was allowed to speak. */
  readonly supportedVersions: readonly string[];
  /** The versions the server said it supports (`-32022`), if it said. */
  readonly serverSupported: readonly string[] | undefined;
  constructor(
    label: string,
    serverVersion: string | undefined,
    supportedVersions: readonly string[],
    serverSupported?: readonly string[],
  ) {
    super(
      ClientErrorCode.UnsupportedProtocolVersion,
      serverVersion !== undefined
        ? `${label}: server chose protocol version "${serverVersion}", which this client does not support (supported: ${supportedVersions.join(', ')}); upgrade mcpkit or pin a version the server accepts`
        : `${label}: no protocol version in common: the server supports ${serverSupported?.length ? serverSupported.join(', ') : 'none it named'}, this client ${supportedVersions.join(', ')}; upgrade one side or change the pinned version`,
    );
    this.serverVersion = serverVersion;
    this.supportedVersions = supportedVersions;
    this.serverSupported = serverSupported;
  }
}

/**
 * The server sent a request (or asked for input) that this client has no handler for, e.g.
 * `sampling/createMessage` without `options.handlers.sampling`. Pass a handler for `method`.
 */
export class MissingHandlerError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.MissingHandlerError';
  override readonly name = 'MissingHandlerError';
  readonly method: string;
  constructor(label: string, method: string) {
    super(
      ClientErrorCode.MissingHandler,
      `${label}: the server asked for "${method}", but this client has no handler for it (pass one in options.handlers)`,
    );
    this.method = method;
  }
}

/**
 * A tool in the server's list did not fit the protocol schema: it was left out of
 * `listTools()` (`action: 'dropped'`: no name, a schema that is not an object schema,
 * invalid `x-mcp-header` annotations, …) or kept with an unambiguous repair (`action:
 * 'repaired'`: a schema without `"type": "object"`); the other tools are unaffected.
 * Reported through `onerror`.
 */
export class InvalidToolError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.InvalidToolError';
  override readonly name = 'InvalidToolError';
  readonly toolName: string;
  readonly reason: string;
  readonly action: 'dropped' | 'repaired';
  constructor(
    label: string,
    toolName: string,
    reason: string,
    action: 'dropped' | 'repaired' = 'dropped',
  ) {
    super(
      ClientErrorCode.InvalidTool,
      `${label}: tool "${toolName}" ${action === 'dropped' ? 'left out' : 'repaired'}: ${reason}`,
    );
    this.toolName = toolName;
    this.reason = reason;
    this.action = action;
  }
}

/** A server's answer did not match the protocol schema. */
export class InvalidResultError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.InvalidResultError';
  override readonly name = 'InvalidResultError';
  readonly method: string;
  constructor(label: string, method: string, detail: string, cause: unknown) {
    super(
      ClientErrorCode.InvalidResult,
      `${label}: invalid "${method}" result from the server: ${detail}`,
      {
        cause,
      },
    );
    this.method = method;
  }
}

/**
 * The server does not offer what was asked: `listen()` on a server of the handshake era,
 * a tool call as a task on a server that runs none. Use the alternative the message names.
 */
export class UnsupportedByServerError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.UnsupportedByServerError';
  override readonly name = 'UnsupportedByServerError';
  constructor(message: string) {
    super(ClientErrorCode.UnsupportedByServer, message);
  }
}

/** The server returned the same pagination cursor twice: listing stopped rather than loop. */
export class RepeatedCursorError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.RepeatedCursorError';
  override readonly name = 'RepeatedCursorError';
  readonly method: string;
  readonly cursor: string;
  constructor(message: string, method: string, cursor: string) {
    super(ClientErrorCode.RepeatedCursor, message);
    this.method = method;
    this.cursor = cursor;
  }
}

/** A limit from the options was reached (`option` names it: raise it if the server needs more). */
export class LimitExceededError extends McpkitError {
  static readonly brand: string = '@mcpkit/client.LimitExceededError';
  override readonly name = 'LimitExceededError';
  readonly option: string;
  readonly limit: number;
  constructor(message: string, option: string, limit: number) {
    super(ClientErrorCode.LimitExceeded, message);
    this.option = option;
    this.limit = limit;
  }
}

/** One out-of-band interaction the server needs from the user before it can proceed. */
export interface UrlElicitation {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
}

/**
 * The server answered -32042: the user must first complete the interactions at these URLs
 * (sign in, consent, pay…). Open them, then retry the request.
 */
export class UrlElicitationRequiredError extends RpcError {
  static override readonly brand: string = '@mcpkit/client.UrlElicitationRequiredError';
  override readonly name = 'UrlElicitationRequiredError';
  readonly elicitations: UrlElicitation[];
  constructor(source: RpcError) {
    super(source.rpcCode, source.rpcMessage, source.data, source.context);
    const data = source.data as { elicitations?: unknown } | undefined;
    this.elicitations = Array.isArray(data?.elicitations)
      ? (data.elicitations as UrlElicitation[])
      : [];
  }
}

/** Turns -32042 into `UrlElicitationRequiredError`; other errors pass unchanged. */
export function mapRpcError(error: unknown): never {
  if (RpcError.isInstance(error) && error.rpcCode === McpErrorCode.UrlElicitationRequired)
    throw new UrlElicitationRequiredError(error);
  throw error;
}

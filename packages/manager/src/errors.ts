import { McpkitError, type McpkitErrorOptions, TimeoutError } from '@mcpkit/jsonrpc';
import type { FailureCause, NextStep } from './failure.js';
import { defaultHints, type ResolvedHints } from './hints.js';

/** Codes of the errors `@mcpkit/manager` throws (their `code`). Stable: match on these. */
export const ManagerErrorCode = {
  /**
   * The config says the server must not start (pending approval, rejected, blocked,
   * disabled): `ServerNotEnabledError`, thrown by `@mcpkit/config`'s gate (its `ConfigErrorCode.NotEnabled`).
   */
  NotEnabled: 'MCPKIT_SERVER_NOT_ENABLED',
  /** The config entry's type has no transport here (and the host registered none). */
  UnsupportedType: 'MCPKIT_UNSUPPORTED_SERVER_TYPE',
  /** No server of that name is managed. */
  UnknownServer: 'MCPKIT_UNKNOWN_SERVER',
  /** The server is not connected (failed, needs-auth, disabled or still pending). */
  Unavailable: 'MCPKIT_SERVER_UNAVAILABLE',
  /** A stdio server kept dying right after it started; it is held until `reconnect()`. */
  CrashLoop: 'MCPKIT_CRASH_LOOP',
  /** The manager (or the scope) was closed. */
  Closed: 'MCPKIT_MANAGER_CLOSED',
  /** A host tool or command name that the manager does not know. */
  UnknownTool: 'MCPKIT_UNKNOWN_TOOL',
  /** A command's arguments do not fit its prompt. */
  InvalidArguments: 'MCPKIT_INVALID_ARGUMENTS',
  /** Connecting failed; `cause` says why. */
  ConnectFailed: 'MCPKIT_CONNECT_FAILED',
  /**
   * MCP Apps: a view asked for a tool it may not call (not of its own server, unknown, or
   * its visibility leaves out "app"): `AppToolRefusedError`.
   */
  AppToolRefused: 'MCPKIT_APP_TOOL_REFUSED',
  /** MCP Apps: a `ui://` resource that is not a view (`UiResourceError`, `reason` says why). */
  UiResource: 'MCPKIT_UI_RESOURCE',
} as const;
export type ManagerErrorCode = (typeof ManagerErrorCode)[keyof typeof ManagerErrorCode];

/** The structured facts a manager error carries beside its message. */
export interface FailureFacts {
  /** Why it failed (match on `failure.kind`, never on the message). */
  failure?: FailureCause;
  /** What gets the server back, for a host to word in its own commands. */
  nextStep?: NextStep;
}

/**
 * Base of the manager's own errors. Every one names the server; those about a failure
 * carry `failure` and `nextStep` as facts.
 */
export class ManagerError extends McpkitError {
  static readonly brand: string = '@mcpkit/manager.ManagerError';
  override readonly name: string = 'ManagerError';
  /** The server the error is about. */
  readonly server: string;
  readonly failure: FailureCause | undefined;
  readonly nextStep: NextStep | undefined;
  constructor(
    code: string,
    server: string,
    message: string,
    options?: McpkitErrorOptions & FailureFacts,
  ) {
    super(code, message, options);
    this.server = server;
    this.failure = options?.failure;
    this.nextStep = options?.nextStep;
  }
}

/**
 * The gate's refusal (pending approval, rejected, blocked, disabled): one class, from
 * `@mcpkit/config`, which owns the resolved entry the gate decides on.
 */
export { ServerNotEnabledError } from '@mcpkit/config';

export class UnsupportedServerTypeError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.UnsupportedServerTypeError';
  override readonly name = 'UnsupportedServerTypeError';
  readonly type: string;
  constructor(server: string, type: string, hint: string) {
    super(
      ManagerErrorCode.UnsupportedType,
      server,
      `server "${server}": type "${type}" cannot be connected: ${hint}`,
      { failure: { kind: 'unsupported-type', type }, nextStep: { kind: 'fix-config' } },
    );
    this.type = type;
  }
}

export class UnknownServerError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.UnknownServerError';
  override readonly name = 'UnknownServerError';
  constructor(server: string, known: readonly string[]) {
    super(
      ManagerErrorCode.UnknownServer,
      server,
      `server "${server}" is not managed here; known servers: ${known.length > 0 ? known.join(', ') : '(none)'}`,
    );
  }
}

export class UnknownToolError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.UnknownToolError';
  override readonly name = 'UnknownToolError';
  constructor(hostName: string) {
    super(
      ManagerErrorCode.UnknownTool,
      '',
      `no MCP tool or command is named "${hostName}"; list them again with tools() or commands()`,
    );
  }
}

/** Why a view's tool call was refused. */
export type AppToolRefusal = 'other-server' | 'unknown-tool' | 'not-app-visible';

/**
 * MCP Apps: a view (of `server`'s `ui://` resource) asked to call a tool the extension does
 * not let it call. `reason`: a tool of another server, a tool its server does not list, or
 * one whose `_meta.ui.visibility` leaves out "app".
 */
export class AppToolRefusedError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.AppToolRefusedError';
  override readonly name = 'AppToolRefusedError';
  readonly tool: string;
  readonly reason: AppToolRefusal;
  /** The server whose tool was asked for, when it is not the view's own. */
  readonly targetServer: string | undefined;
  constructor(server: string, tool: string, reason: AppToolRefusal, targetServer?: string) {
    const why =
      reason === 'other-server'
        ? `it belongs to server "${targetServer}", and a view may call only its own server's tools`
        : reason === 'unknown-tool'
          ? 'the server lists no tool of that name'
          : 'its visibility leaves out "app" (it is for the model only)';
    super(
      ManagerErrorCode.AppToolRefused,
      server,
      `server "${server}": a view may not call tool "${tool}": ${why}`,
    );
    this.tool = tool;
    this.reason = reason;
    this.targetServer = targetServer;
  }
}

/** Why a `ui://` resource could not be used as a view. */
export type UiResourceProblem = 'not-ui-uri' | 'no-content' | 'not-html' | 'too-large';

/** MCP Apps: `readUiResource` got something that is not a view it can render. */
export class UiResourceError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.UiResourceError';
  override readonly name = 'UiResourceError';
  readonly uri: string;
  readonly reason: UiResourceProblem;
  constructor(server: string, uri: string, reason: UiResourceProblem, detail: string) {
    super(ManagerErrorCode.UiResource, server, `server "${server}": view ${uri}: ${detail}`);
    this.uri = uri;
    this.reason = reason;
  }
}

/** A call reached a server that is not connected; the state says why. */
export class ServerUnavailableError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.ServerUnavailableError';
  override readonly name = 'ServerUnavailableError';
  readonly state: string;
  /** `detail` that is already a sentence about the server (`server "x" was …`) is the message as it is. */
  constructor(
    server: string,
    state: string,
    detail: string,
    options?: McpkitErrorOptions & FailureFacts,
  ) {
    super(
      ManagerErrorCode.Unavailable,
      server,
      detail.startsWith(`server "${server}" `)
        ? detail
        : `server "${server}" is ${state}: ${detail}`,
      options,
    );
    this.state = state;
  }
}

/** A connect attempt failed. Carries what the host needs to show: exit code, stderr, URL, status. */
export class ServerConnectError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.ServerConnectError';
  override readonly name = 'ServerConnectError';
  readonly exitCode: number | undefined;
  readonly stderrTail: string | undefined;
  readonly url: string | undefined;
  readonly status: number | undefined;
  declare readonly failure: FailureCause;
  declare readonly nextStep: NextStep;
  constructor(
    server: string,
    cause: Error,
    next: string,
    details: {
      exitCode?: number;
      stderrTail?: string;
      url?: string;
      status?: number;
      failure: FailureCause;
      nextStep: NextStep;
    },
  ) {
    const text = cause.message.startsWith(`server "${server}"`)
      ? cause.message.slice(`server "${server}"`.length).replace(/^:\s*/, '')
      : cause.message;
    super(
      ManagerErrorCode.ConnectFailed,
      server,
      `server "${server}": could not connect: ${text}; ${next}`,
      { cause, failure: details.failure, nextStep: details.nextStep },
    );
    this.exitCode = details.exitCode;
    this.stderrTail = details.stderrTail;
    this.url = details.url;
    this.status = details.status;
  }
}

/** A stdio server died soon after starting too often; it is held `failed` until `reconnect()`. */
export class CrashLoopError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.CrashLoopError';
  override readonly name = 'CrashLoopError';
  readonly exitCode: number | undefined;
  readonly stderrTail: string | undefined;
  declare readonly failure: FailureCause;
  declare readonly nextStep: NextStep;
  constructor(
    server: string,
    starts: number,
    windowMs: number,
    exitCode: number | undefined,
    stderrTail: string | undefined,
    hints: ResolvedHints = defaultHints,
  ) {
    super(
      ManagerErrorCode.CrashLoop,
      server,
      `server "${server}": crashed ${starts} times within ${Math.round(windowMs / 1000)} s of starting (last exit code ${exitCode ?? 'unknown'}); not restarting it on its own — fix the server or its config, then ${hints.reconnect(server)}${stderrTail ? `; last stderr:\n${stderrTail}` : ''}`,
      {
        failure: {
          kind: 'crash-loop',
          attempts: starts,
          windowMs,
          ...(exitCode !== undefined ? { exitCode } : {}),
        },
        nextStep: { kind: 'fix-config' },
      },
    );
    this.exitCode = exitCode;
    this.stderrTail = stderrTail;
  }
}

export class ManagerClosedError extends ManagerError {
  static override readonly brand: string = '@mcpkit/manager.ManagerClosedError';
  override readonly name = 'ManagerClosedError';
  constructor(server = '') {
    super(
      ManagerErrorCode.Closed,
      server,
      `${server ? `server "${server}": ` : ''}the MCP manager was closed; create a new one to connect again`,
    );
  }
}

/**
 * The connect budget (`MCP_TIMEOUT`) ran out before the handshake finished. Facts only: the
 * budget, and what the server wrote to stderr meanwhile (often the reason it never answered,
 * such as an `npx` that could not download it); the next step is `nextStep`, for the host to word.
 */
export class ConnectTimeoutError extends TimeoutError {
  static override readonly brand: string = '@mcpkit/manager.ConnectTimeoutError';
  override readonly name = 'ConnectTimeoutError';
  readonly server: string;
  readonly failure: FailureCause;
  readonly nextStep: NextStep;
  /** The last lines the server process wrote to stderr before it was stopped (stdio only). */
  readonly stderrTail: string | undefined;
  constructor(server: string, timeoutMs: number, stderrTail?: string) {
    const tail = stderrTail?.trim();
    super(
      `server "${server}": did not finish connecting within ${timeoutMs} ms (handshake included); the server was stopped${tail ? `; last stderr:\n${tail.replace(/^/gm, '  ')}` : ''}`,
      timeoutMs,
    );
    this.server = server;
    this.failure = { kind: 'timeout', timeoutMs };
    this.nextStep = { kind: 'raise-limit', option: 'limits.connectTimeoutMs' };
    this.stderrTail = tail ? stderrTail : undefined;
  }
}

import type { AuthInfo, JsonRpcId, Progress, RequestContext } from '@mcpkit/jsonrpc';
import {
  type ClientCapabilities,
  type Era,
  type Implementation,
  type LoggingLevel,
  Notification,
} from '@mcpkit/protocol';
import { CLIENT_CAPABILITY_OF, LEVELS } from './era-rules.js';
import { McpServerError, ServerErrorCode } from './errors.js';
import type { HandlerContext } from './types.js';

/** Where a request's log level is read: a 2025 session's (changed by `logging/setLevel`), or the request's own. */
export interface LogLevelSource {
  readonly logLevel: LoggingLevel | undefined;
}

/** What sends a handler's request to the client (a session, through its instrumentation). */
export interface ClientRequester {
  requestClient(
    rctx: RequestContext,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown>;
}

/**
 * The `HandlerContext` of one request. A class, not a literal with closures and a getter:
 * one small object per request, and the AbortSignal made only for a handler that reads it.
 */
export class SessionRequestContext implements HandlerContext {
  readonly inputResponses: Record<string, Record<string, unknown>> | undefined = undefined;
  readonly requestState: unknown = undefined;

  constructor(
    private readonly rctx: RequestContext,
    readonly era: Era,
    readonly protocolVersion: string,
    readonly clientCapabilities: ClientCapabilities,
    readonly clientInfo: Implementation | undefined,
    readonly sessionId: string | undefined,
    private readonly level: LogLevelSource,
    private readonly closeSse: ((requestId: JsonRpcId) => void) | undefined,
    /** What sends a 2025 handler's requests to the client (instrumented); absent: `rctx` alone. */
    private readonly client?: ClientRequester,
  ) {}

  get signal(): AbortSignal {
    return this.rctx.signal;
  }

  get cancellation(): RequestContext['cancellation'] {
    return this.rctx.cancellation;
  }

  get requestId(): JsonRpcId {
    return this.rctx.id;
  }

  get method(): string {
    return this.rctx.method;
  }

  get meta(): Record<string, unknown> | undefined {
    return this.rctx.meta;
  }

  get authInfo(): AuthInfo | undefined {
    return this.rctx.authInfo;
  }

  progress(progress: Progress): Promise<void> {
    return this.rctx.progress(progress);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const min = this.level.logLevel;
    // A 2025 session logs everything until the client sets a level; a 2026-07-28 request
    // logs only when it asked for a level.
    const passes =
      min === undefined ? this.era === 'legacy' : LEVELS.indexOf(level) >= LEVELS.indexOf(min);
    if (!passes) return Promise.resolve();
    return this.rctx.notify(
      Notification.Message,
      logger === undefined ? { level, data } : { level, data, logger },
    );
  }

  async request(
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (this.era === 'modern') {
      throw new McpServerError(
        ServerErrorCode.NotSupported,
        `${method}: a 2026-07-28 server cannot send requests to the client; return inputRequired({ inputRequests }) instead`,
      );
    }
    const capability = CLIENT_CAPABILITY_OF[method];
    if (
      capability &&
      (this.clientCapabilities as Record<string, unknown>)[capability] === undefined
    ) {
      throw new McpServerError(
        ServerErrorCode.NotSupported,
        `${method}: the client did not declare the "${capability}" capability`,
      );
    }
    return (await (this.client !== undefined
      ? this.client.requestClient(this.rctx, method, params)
      : this.rctx.request(method, params, { cancellation: this.rctx.cancellation }))) as Record<
      string,
      unknown
    >;
  }

  closeSseStream(): void {
    this.closeSse?.(this.rctx.id);
  }
}

/** A context for the next round of a multi round-trip request: the same, with the answers. */
export function withInput(
  ctx: HandlerContext,
  inputResponses: Record<string, Record<string, unknown>> | undefined,
  requestState: unknown,
): HandlerContext {
  // Getters and methods live on the prototype: a derived object keeps them (a spread would not).
  return Object.assign(Object.create(ctx) as HandlerContext, { inputResponses, requestState });
}

import type { AuthInfo, Cancellation, JsonRpcId, Progress } from '@mcpkit/jsonrpc';
import type {
  CallToolResult,
  ClientCapabilities,
  Era,
  GetPromptResult,
  Icon,
  Implementation,
  LoggingLevel,
  PromptArgument,
  ReadResourceResult,
  ServerCapabilities,
  ToolAnnotations,
} from '@mcpkit/protocol';
import type { ToolTaskReturn } from './tasks-ext.js';

/** A request the server needs the client to fulfil (2026-07-28 `InputRequest`). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params?: Record<string, unknown>;
}

/** A 2026-07-28 `InputRequiredResult`, as a handler returns it (see `inputRequired`). */
export interface InputRequiredReturn {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  /** Any JSON value: the server seals it (HMAC) before it leaves, and opens it on the retry. */
  requestState?: unknown;
}

/** What every handler receives besides its arguments. */
export interface HandlerContext {
  /** Aborted when the client cancels, the HTTP stream closes or the connection ends. */
  readonly signal: AbortSignal;
  /**
   * The same as `signal`, without an `AbortSignal` (made only when `signal` is read): pass
   * it as `cancellation` to a request sent on the caller's behalf, as a proxy does.
   */
  readonly cancellation: Cancellation;
  readonly requestId: JsonRpcId;
  readonly method: string;
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientCapabilities: ClientCapabilities;
  readonly clientInfo: Implementation | undefined;
  /** The HTTP session (2025 revisions over Streamable HTTP). */
  readonly sessionId: string | undefined;
  /** `params._meta` of the request. */
  readonly meta: Record<string, unknown> | undefined;
  /**
   * HTTP: the caller's verified identity, when the listener's `authInfo` option gave one
   * for the request (undefined over stdio and for unauthenticated listeners).
   */
  readonly authInfo: AuthInfo | undefined;
  /** Answers to the `inputRequests` of the previous round, keyed as the handler keyed them. */
  readonly inputResponses: Record<string, Record<string, unknown>> | undefined;
  /** The `requestState` of the previous round, opened and verified. */
  readonly requestState: unknown;
  /** Sends `notifications/progress` when the client asked for progress; a no-op otherwise. */
  progress(progress: Progress): Promise<void>;
  /** Sends `notifications/message` if the client's log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Sends a request to the client (2025 revisions only; a 2026-07-28 handler returns
   * `inputRequired(...)` instead). Rejects with `McpServerError` (`MCPKIT_SERVER_NOT_SUPPORTED`)
   * in the modern era.
   */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * HTTP, 2025-11-25: ends this request's SSE stream now (the client resumes with
   * `Last-Event-ID`, SEP-1699). A no-op elsewhere.
   */
  closeSseStream(): void;
}

export type ToolHandler = (
  args: Record<string, unknown>,
  context: HandlerContext,
) =>
  | CallToolResult
  | InputRequiredReturn
  | ToolTaskReturn
  | Promise<CallToolResult | InputRequiredReturn | ToolTaskReturn>;

export interface ToolDefinition {
  title?: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema); `{ type: 'object' }` when absent. */
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** Client capabilities the tool needs: a call without them gets -32021 (2026-07-28) or -32602. */
  requiredClientCapabilities?: ClientCapabilities;
  _meta?: Record<string, unknown>;
}

export type PromptHandler = (
  args: Record<string, string>,
  context: HandlerContext,
) => GetPromptResult | InputRequiredReturn | Promise<GetPromptResult | InputRequiredReturn>;

/** Suggests values for one argument: the partial value in, candidates out. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string> },
) => string[] | Promise<string[]>;

export interface PromptDefinition {
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  /** Completers by argument name. */
  complete?: Record<string, Completer>;
  _meta?: Record<string, unknown>;
}

export type ResourceReader = (
  uri: string,
  context: HandlerContext,
) => ReadResourceResult | InputRequiredReturn | Promise<ReadResourceResult | InputRequiredReturn>;

export type TemplateReader = (
  uri: string,
  variables: Record<string, string>,
  context: HandlerContext,
) => ReadResourceResult | InputRequiredReturn | Promise<ReadResourceResult | InputRequiredReturn>;

export interface ResourceDefinition {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface ResourceTemplateDefinition extends Omit<ResourceDefinition, 'size'> {
  /** Completers by template variable name. */
  complete?: Record<string, Completer>;
}

/**
 * Who subscribed, for the `onsubscribe` / `onunsubscribe` hooks: `subscriber` is the same
 * object for every call about one subscriber (a connection, an HTTP session, or one
 * 2026-07-28 `subscriptions/listen` stream), so a host can count subscribers per URI.
 */
export interface SubscriptionContext {
  readonly subscriber: object;
  /** The HTTP session (2025 revisions over Streamable HTTP). */
  readonly sessionId: string | undefined;
}

/**
 * Told of a resource subscription that starts or ends (`resources/subscribe` and
 * `unsubscribe`, the end of a connection that had some, the `resourceSubscriptions` of a
 * `subscriptions/listen` stream). A rejection from `onsubscribe` fails `resources/subscribe`
 * with that error (an `RpcError` keeps its code).
 */
export type SubscriptionHook = (uri: string, context: SubscriptionContext) => void | Promise<void>;

/** Caching hints (2026-07-28) put on list and read results. */
export interface CacheHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/** Returned by every `register*` call. */
export interface Registration {
  /** Unregisters it and tells connected clients the list changed. */
  remove(): void;
}

export type { ServerCapabilities };

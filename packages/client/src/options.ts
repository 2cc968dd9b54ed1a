import {
  CancelScope,
  type JsonRpcId,
  type McpInstrumentation,
  type RequestOptions,
} from '@mcpkit/jsonrpc';
import { checkCount, checkTimerMs } from '@mcpkit/jsonrpc/internal';
import type {
  ClientCapabilities,
  Implementation,
  LoggingLevel,
  LoggingMessageParams,
  SubscriptionFilter,
  Task,
} from '@mcpkit/protocol';
import type { ClientHandlers } from './client-handlers.js';
import type { EraRecord } from './modern.js';
import type { ExtensionTask } from './tasks-ext.js';

/** Defaults a host may read and override. */
export const clientDefaults = Object.freeze({
  clientInfo: Object.freeze({ name: 'mcpkit', version: '0.1.0' }) as Implementation,
  /** Pages fetched by a `list*` call before it fails (a guard against endless cursors). */
  maxPages: 100,
  requestTimeoutMs: 60_000,
  connectTimeoutMs: 60_000,
  /** How long a `server/discover` probe may go unanswered before the server counts as legacy. */
  discoverTimeoutMs: 5_000,
  /** Multi round-trip requests: retries with input before the client gives up. */
  maxInputRounds: 10,
  /** Task polling interval when the server suggests none. */
  taskPollIntervalMs: 1_000,
});

/** Limits on what a skill (SEP-2640) may make the client read (`skillDefaults` by default). */
export interface SkillOptions {
  maxFileBytes?: number;
  maxSkillBytes?: number;
  maxResources?: number;
}

export interface McpClientOptions {
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
  /** Server name for error messages (`server "github": …`). */
  name?: string;
  /**
   * Hooks that observe each request (`@mcpkit/otel` implements them); by default the
   * process-wide ones of `setGlobalInstrumentation`, if any; `false`: none.
   */
  instrumentation?: McpInstrumentation | false;
  /**
   * Speak this revision and no other: a legacy one through `initialize`, 2026-07-28
   * statelessly. Default: negotiate (see `era`).
   */
  protocolVersion?: string;
  /**
   * `auto` (default): probe with `server/discover` and fall back to `initialize`, as the
   * 2026-07-28 backward-compatibility rules describe. `legacy` or `modern` pins the era.
   */
  era?: 'auto' | 'legacy' | 'modern';
  /** Versions this client may speak. Default: every published revision. */
  supportedVersions?: readonly string[];
  /**
   * Where the era learned of a server is kept, keyed by the transport's `eraKey` (HTTP
   * endpoints). Default: one cache shared by all clients in the process; `false`: none.
   */
  eraCache?: Map<string, EraRecord> | false;
  /** How long a `server/discover` probe may stay unanswered (then: legacy). Default 5 s. */
  discoverTimeoutMs?: number;
  /** Per-request timeout; `0` or `Infinity` for none. Default 60 s. */
  requestTimeoutMs?: number;
  /** Pages a `list*` call fetches before it fails. Default 100. */
  maxPages?: number;
  /** Multi round-trip requests (2026-07-28): the most retries with input (`0`: none). Default 10. */
  maxInputRounds?: number;
  /**
   * Keep `list*` results until the server says they changed (list_changed) or, on
   * 2026-07-28, until their `ttlMs` runs out. Default true.
   */
  cacheLists?: boolean;
  /** 2026-07-28: the log level sent with every request (`notifications/message` only then). */
  logLevel?: LoggingLevel;
  /** Check results against the protocol schemas. Default true. */
  validateResults?: boolean;
  /** Check `structuredContent` against the tool's `outputSchema` (JSON Schema 2020-12). Default true. */
  validateOutputSchemas?: boolean;
  /** Limits on what a skill (SEP-2640) may make the client read. Default `skillDefaults`. */
  skills?: SkillOptions;
  /** Sampling, elicitation and roots: each handler given declares its capability. */
  handlers?: ClientHandlers;
  /**
   * `notifications/message` from the server. `relatedRequestId`: over HTTP, the id of this
   * client's request on whose response stream it arrived (see `CallOptions.onid`).
   */
  onlog?: (params: LoggingMessageParams, context: { relatedRequestId?: JsonRpcId }) => void;
  /** A list changed on the server (debounced per list, 50 ms). */
  onlistchanged?: (list: 'tools' | 'prompts' | 'resources') => void;
  /**
   * Streamable HTTP: a new session replaced one the server forgot (a 404 to a request or to
   * the standalone GET that carried the session id). The new session's capabilities and
   * lists may differ from the old one's; the client's cached lists were dropped.
   */
  onsessionrenewed?: () => void;
  /** A subscribed resource changed. */
  onresourceupdated?: (uri: string) => void;
  /** The user completed a URL-mode elicitation (`notifications/elicitation/complete`). */
  onelicitationcomplete?: (elicitationId: string) => void;
  /** A task changed status (`notifications/tasks/status`, 2025-11-25). */
  ontaskstatus?: (task: Task) => void;
  /**
   * 2026-07-28: declare the tasks extension (`io.modelcontextprotocol/tasks`) on every
   * `tools/call`, so a server may answer a long call with a task, which `callTool` follows
   * to its result (see `CallOptions.tasks`). Default false.
   */
  tasks?: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * For a call made on behalf of an incoming request (a gateway): cancelled with it, as
   * `signal` would be, without the cost of an AbortSignal (`RequestContext.cancellation`).
   */
  cancellation?: RequestOptions['cancellation'];
  timeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
  onprogress?: RequestOptions['onprogress'];
  /** Told the request's JSON-RPC id before it is sent (a session renewal's retry: again). */
  onid?: RequestOptions['onid'];
  /** 2026-07-28: the log level for this request only. */
  logLevel?: LoggingLevel;
  /** `list*`: ask the server even when a cached answer is fresh. */
  fresh?: boolean;
  /**
   * 2026-07-28: the `io.modelcontextprotocol/clientCapabilities` sent with this request
   * instead of the client's own (a gateway speaks for its caller). No effect on 2025 servers,
   * whose capabilities are fixed by `initialize`.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * HTTP servers: headers sent with this request's own POST only (a gateway giving a
   * backend its caller's identity); ignored by the other transports.
   */
  headers?: RequestOptions['headers'];
  /**
   * `callTool`, 2026-07-28: declare the tasks extension on this call (overrides the client's
   * `tasks` option). A task handle from the server is followed to the final result: polled at
   * its `pollIntervalMs`, `statusMessage` to `onprogress`, input rounds to the handlers,
   * `tasks/cancel` when the signal aborts. `'return'`: a task handle is returned as it came
   * (`TaskHandle`), for a caller that follows it itself (a gateway passing it on).
   */
  tasks?: boolean | 'return';
  /** `callTool` with the tasks extension: told the task as soon as the server created it (persist `taskId` to resume). */
  ontask?: (task: ExtensionTask) => void;
}

/**
 * 2026-07-28 multi round-trip requests driven by the caller (`callTool`, `getPrompt`,
 * `readResource`): an `input_required` result is returned as it came (every input request
 * with its key, and the request state) instead of being answered with the client's
 * handlers; the caller sends the next round with `inputResponses` and `requestState`.
 * Servers of the 2025 revisions never answer `input_required`: their requests to the
 * client still go to `handlers`.
 */
export interface InputRoundOptions extends CallOptions {
  inputRequired: 'return';
  /** Answers to the previous round's `inputRequests`, under the server's keys. */
  inputResponses?: Record<string, unknown>;
  /** The previous round's `requestState`, echoed unchanged. */
  requestState?: string;
}

export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** A `subscriptions/listen` stream (2026-07-28). */
export interface Subscription {
  /** The JSON-RPC id of the listen request: notifications carry it as their subscription id. */
  readonly id: JsonRpcId;
  /** What the server agreed to send: a subset of what was asked. */
  readonly notifications: SubscriptionFilter;
  /** Settles when the subscription ends: resolves when the server or `close()` ended it. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** The largest `maxPages` / `maxInputRounds` accepted: past this they are no guard at all. */
const MAX_ROUNDS = 1_000_000;

/**
 * Checks the numeric options of `McpClient` (a `TypeError` naming the option and its
 * allowed range) and returns them. Per-call `timeoutMs`/`maxTotalTimeoutMs` are checked
 * by `JsonRpcPeer.request` when the call is made.
 */
export function checkClientOptions(options: McpClientOptions): McpClientOptions {
  const owner = options.name ? `McpClient (server "${options.name}")` : 'McpClient';
  checkTimerMs(owner, 'requestTimeoutMs', options.requestTimeoutMs, { zero: true, infinity: true });
  checkTimerMs(owner, 'discoverTimeoutMs', options.discoverTimeoutMs);
  checkCount(owner, 'maxPages', options.maxPages, { max: MAX_ROUNDS });
  checkCount(owner, 'maxInputRounds', options.maxInputRounds, { min: 0, max: MAX_ROUNDS });
  return options;
}

/**
 * A call's AbortSignal, made from its `cancellation` when it has only that: for the slow
 * paths that hand a signal on (task polling, answering input rounds with the handlers).
 */
export function callSignal(options: CallOptions | undefined): AbortSignal | undefined {
  const cancellation = options?.cancellation;
  if (options?.signal || !cancellation) return options?.signal;
  if (cancellation instanceof CancelScope) return cancellation.signal;
  const controller = new AbortController();
  if (cancellation.aborted) controller.abort(cancellation.reason);
  else cancellation.addListener((reason) => controller.abort(reason));
  return controller.signal;
}

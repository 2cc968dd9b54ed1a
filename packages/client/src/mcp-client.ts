import {
  AlreadyStartedError,
  ConnectionClosedError,
  ErrorCode,
  type JsonRpcNotification,
  JsonRpcPeer,
  SessionExpiredError,
} from '@mcpkit/jsonrpc';
import {
  type CallToolResult,
  ClientMethod,
  type CompleteResult,
  type DiscoverResult,
  type GetPromptResult,
  type Implementation,
  type InputRequiredResult,
  type LoggingLevel,
  type McpTransport,
  MetaKey,
  Notification,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  ServerMethod,
  type SubscriptionFilter,
  type Task,
  type Tool,
} from '@mcpkit/protocol';
import type { z } from 'zod';
import { registerClientHandlers } from './client-handlers.js';
import {
  notificationWrapper,
  serverRequestWrapper,
  startSession,
} from './client-instrumentation.js';
import { ConnectBudget } from './connect-budget.js';
import { Connection } from './connection.js';
import { mapRpcError } from './errors.js';
import { ServerLists } from './lists.js';
import { mcpTransportOf } from './mcp-transport-of.js';
import { isInputRequired } from './modern.js';
import { negotiate } from './negotiation.js';
import { registerNotifications } from './notifications.js';
import {
  type CallOptions,
  type CallToolParams,
  checkClientOptions,
  clientDefaults,
  type InputRoundOptions,
  type McpClientOptions,
  type Subscription,
} from './options.js';
import { RequestPipeline } from './request-pipeline.js';
import { fastEmptyResult } from './result-checks.js';
import type { SkillEntry } from './skills/entry.js';
import { type Skill, type SkillFile, Skills } from './skills/skills.js';
import { Subscriptions } from './subscriptions.js';
import { serverRunsToolTasks, Tasks } from './tasks.js';
import {
  type ExtensionTask,
  isTaskHandle,
  type TaskFollowOptions,
  type TaskHandle,
  TasksExtension,
} from './tasks-ext.js';

/**
 * An MCP client over any transport. It settles the era and version with the server
 * (`server/discover` for 2026-07-28, else the `initialize` handshake) and offers typed
 * calls that behave the same in both. One client, one server connection.
 */
export class McpClient {
  readonly options: McpClientOptions;
  /** Notifications without a dedicated handler (logging, list changes, …). */
  onnotification: ((notification: JsonRpcNotification) => void) | undefined;
  /** Problems outside any single call (bad input from the server, transport warnings). */
  onerror: ((error: Error) => void) | undefined;
  /** The connection ended; `cause` tells why when the server side ended it. */
  onclose: ((cause?: Error) => void) | undefined;

  // The public face only: the work is done by parts that share one `Connection`
  // (negotiation, the request pipeline with its retries, lists, subscriptions, tasks).
  private readonly conn: Connection;
  private readonly pipeline: RequestPipeline;
  private readonly lists: ServerLists;
  private readonly subscriptions: Subscriptions;
  private readonly tasks: Tasks;
  private readonly tasksExt: TasksExtension;
  private readonly skills: Skills;

  constructor(options: McpClientOptions = {}) {
    this.options = checkClientOptions(options);
    this.conn = new Connection(this.options);
    const report = (error: Error) => this.onerror?.(error);
    this.pipeline = new RequestPipeline(
      this.conn,
      () => this.listTools({ fresh: true }),
      () => this.sessionRenewed(),
    );
    this.lists = new ServerLists(this.conn, this.pipeline, report);
    this.subscriptions = new Subscriptions(this.conn, report);
    this.tasks = new Tasks(this.conn, this.pipeline);
    this.tasksExt = new TasksExtension(this.conn, this.pipeline);
    this.skills = new Skills(this.conn, this.pipeline, report);
  }

  get isConnected(): boolean {
    return this.conn.isConnected;
  }

  /** `legacy` (an `initialize` handshake) or `modern` (2026-07-28, stateless). */
  get era(): 'legacy' | 'modern' | undefined {
    return this.conn.server?.era;
  }

  /** The protocol version in use with the server. */
  get protocolVersion(): string | undefined {
    return this.conn.server?.version;
  }

  /** The session the server assigned (Streamable HTTP), while there is one. */
  get sessionId(): string | undefined {
    const peer = this.conn.peer;
    return peer ? mcpTransportOf(peer).sessionId : undefined;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.conn.serverCapabilities;
  }

  get serverInfo(): Implementation | undefined {
    const s = this.conn.server;
    if (s?.era === 'legacy') return s.init.serverInfo;
    if (!s) return undefined;
    const d = s.discover as DiscoverResult & { serverInfo?: Implementation };
    return (d._meta?.[MetaKey.ServerInfo] as Implementation | undefined) ?? d.serverInfo;
  }

  get instructions(): string | undefined {
    const s = this.conn.server;
    return s?.era === 'legacy' ? s.init.instructions : s?.discover.instructions;
  }

  /** What the server said to `server/discover` (2026-07-28), including `supportedVersions`. */
  get discoverResult(): DiscoverResult | undefined {
    const s = this.conn.server;
    return s?.era === 'modern' ? s.discover : undefined;
  }

  /** Starts the transport and settles era and version with the server. */
  async connect(
    transport: McpTransport,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<void> {
    const conn = this.conn;
    if (conn.peer)
      throw new AlreadyStartedError(
        `${conn.label}: connect() was already called; create a new McpClient to connect again`,
      );
    const wrapNotification = notificationWrapper(conn);
    const peer = new JsonRpcPeer(transport, {
      label: conn.label,
      defaultTimeoutMs: this.options.requestTimeoutMs ?? clientDefaults.requestTimeoutMs,
      ...(wrapNotification !== undefined ? { wrapNotification } : {}),
    });
    conn.peer = peer;
    peer.onerror = (error) => {
      // The server forgot the session outside any request (the standalone GET met 404).
      if (SessionExpiredError.isInstance(error) && conn.server?.era === 'legacy') {
        this.renewOutsideRequest(peer, error);
        return;
      }
      this.onerror?.(error);
    };
    let endSession: ((cause?: Error) => void) | undefined;
    peer.onclose = (cause) => {
      endSession?.(cause);
      this.subscriptions.connectionClosed();
      this.onclose?.(cause);
    };
    peer.fallbackNotificationHandler = (n) => this.onnotification?.(n);
    peer.setRequestHandler(ServerMethod.Ping, () => ({}));
    registerClientHandlers(peer, this.options.handlers, conn.label, serverRequestWrapper(conn));
    registerNotifications(peer, this.options, this.lists.cache, (n) => this.onnotification?.(n));
    this.subscriptions.register(peer);
    transport.setMessageHeaders?.(this.lists.paramHeaders);

    conn.connectTimeoutMs = options.timeoutMs ?? clientDefaults.connectTimeoutMs;
    const budget = new ConnectBudget(conn.connectTimeoutMs, conn.label);
    const steps = { budget, ...(options.signal ? { signal: options.signal } : {}) };
    try {
      await peer.start();
      await negotiate(conn, peer, steps);
    } catch (error) {
      await peer.close().catch(() => {});
      throw error;
    }
    endSession = peer.isClosed ? undefined : startSession(conn);
    if (conn.server?.era === 'modern' && this.subscriptions.wantsManagedListen()) {
      this.subscriptions.relisten().catch((error: unknown) => this.onerror?.(error as Error));
    }
  }

  // ---- lists (cached; see `cacheLists`) -------------------------------------------------

  /** All tools, following `nextCursor` across pages (cached; see `cacheLists`). */
  listTools(options?: CallOptions): Promise<Tool[]> {
    return this.lists.tools(options);
  }

  listResources(options?: CallOptions): Promise<Resource[]> {
    return this.lists.list(
      'resources',
      ClientMethod.ListResources,
      'ListResourcesResultSchema',
      options,
    );
  }

  listResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]> {
    return this.lists.list(
      'resourceTemplates',
      ClientMethod.ListResourceTemplates,
      'ListResourceTemplatesResultSchema',
      options,
    );
  }

  listPrompts(options?: CallOptions): Promise<Prompt[]> {
    return this.lists.list('prompts', ClientMethod.ListPrompts, 'ListPromptsResultSchema', options);
  }

  // ---- tools, resources, prompts ---------------------------------------------------------

  /**
   * `tools/call`. With `inputRequired: 'return'` (2026-07-28), an `input_required` result
   * comes back unanswered for the caller to drive (see `InputRoundOptions`).
   */
  callTool(
    params: CallToolParams,
    options: InputRoundOptions,
  ): Promise<CallToolResult | InputRequiredResult>;
  callTool(
    params: CallToolParams,
    options: CallOptions & { tasks: 'return' },
  ): Promise<CallToolResult | InputRequiredResult | TaskHandle>;
  callTool(params: CallToolParams, options?: CallOptions): Promise<CallToolResult>;
  callTool(
    params: CallToolParams,
    options?: CallOptions | InputRoundOptions,
  ): Promise<CallToolResult | InputRequiredResult | TaskHandle> {
    const tasks =
      this.conn.server?.era === 'modern' ? (options?.tasks ?? this.options.tasks) : false;
    if ((options as InputRoundOptions | undefined)?.inputRequired === 'return') {
      if (!tasks)
        return this.inputRound(
          ClientMethod.CallTool,
          params as unknown as Record<string, unknown>,
          options as InputRoundOptions,
          (raw) => this.checkedToolResult(params.name, raw),
        );
      return this.inputRound(
        ClientMethod.CallTool,
        params as unknown as Record<string, unknown>,
        {
          ...(options as InputRoundOptions),
          clientCapabilities: this.tasksExt.capabilities(options),
        },
        (raw) => this.taskAnswer(params, raw, options!),
      );
    }
    if (tasks) return this.callToolWithTasks(params, options ?? {});
    const { taskTools, outputSchemas } = this.lists;
    // A tool that runs only as a task (2025-11-25) is called as one and awaited.
    if (
      taskTools.size > 0 &&
      taskTools.has(params.name) &&
      serverRunsToolTasks(this.conn.serverCapabilities)
    )
      return this.callToolAsTask(params, {}, options).then((task) =>
        this.waitForTask(task.taskId, options),
      );
    // The hot path: one promise layer, and no schema copy for a plain result.
    const sent = this.pipeline
      .request(ClientMethod.CallTool, params as unknown as Record<string, unknown>, options)
      .then(this.conn.checks.toolResult, mapRpcError);
    // Only tools that declared an output schema pay for its check.
    if (this.options.validateOutputSchemas === false || !outputSchemas.has(params.name))
      return sent;
    return sent.then((result) => outputSchemas.check(this.conn.label, params.name, result));
  }

  /** `resources/read`; `inputRequired: 'return'` as for `callTool`. */
  readResource(
    uri: string,
    options: InputRoundOptions,
  ): Promise<ReadResourceResult | InputRequiredResult>;
  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult>;
  readResource(
    uri: string,
    options?: CallOptions | InputRoundOptions,
  ): Promise<ReadResourceResult | InputRequiredResult> {
    if ((options as InputRoundOptions | undefined)?.inputRequired === 'return')
      return this.inputRound(
        ClientMethod.ReadResource,
        { uri },
        options as InputRoundOptions,
        (raw) =>
          this.conn.checks.check<ReadResourceResult>(
            ClientMethod.ReadResource,
            raw,
            'ReadResourceResultSchema',
          ),
      );
    return this.pipeline.requestChecked(
      ClientMethod.ReadResource,
      { uri },
      'ReadResourceResultSchema',
      undefined,
      options,
    );
  }

  /** `prompts/get`; `inputRequired: 'return'` as for `callTool`. */
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: InputRoundOptions,
  ): Promise<GetPromptResult | InputRequiredResult>;
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: CallOptions | InputRoundOptions,
  ): Promise<GetPromptResult | InputRequiredResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    if ((options as InputRoundOptions | undefined)?.inputRequired === 'return')
      return this.inputRound(ClientMethod.GetPrompt, params, options as InputRoundOptions, (raw) =>
        this.conn.checks.check<GetPromptResult>(
          ClientMethod.GetPrompt,
          raw,
          'GetPromptResultSchema',
        ),
      );
    return this.pipeline.requestChecked(
      ClientMethod.GetPrompt,
      params,
      'GetPromptResultSchema',
      undefined,
      options,
    );
  }

  /** `completion/complete` for a prompt argument or a resource template variable. */
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: CallOptions,
  ): Promise<CompleteResult> {
    const params = context ? { ref, argument, context } : { ref, argument };
    return this.pipeline.requestChecked(
      ClientMethod.Complete,
      params,
      'CompleteResultSchema',
      undefined,
      options,
    ) as Promise<CompleteResult>;
  }

  // ---- skills (the io.modelcontextprotocol/skills extension, SEP-2640) -------------------

  /** The server declared the skills extension (and the resources capability it needs). */
  get supportsSkills(): boolean {
    return this.skills.supported;
  }

  /**
   * Every skill the server lists (`skills/list`, all pages), without fetching any of its
   * files. `[]` when the server does not declare the extension; an entry that breaks the
   * extension's rules is left out and reported through `onerror`.
   */
  listSkills(options?: CallOptions): Promise<SkillEntry[]> {
    return this.skills.list(options);
  }

  /** `skills/get`: one skill's entry by its URI, without fetching its files. */
  getSkill(uri: string, options?: CallOptions): Promise<SkillEntry> {
    return this.skills.get(uri, options);
  }

  /**
   * Loads a skill: reads its SKILL.md and verifies its size and SHA-256 digest against the
   * listing, then its front matter field by field, before returning it. `skill` is an entry,
   * a skill URI, or a name. Throws `SkillVerificationError` on any discrepancy.
   */
  readSkill(skill: string | SkillEntry, options?: CallOptions): Promise<Skill> {
    return this.skills.read(skill, options);
  }

  /** One file of a skill, verified against the size and digest its entry declares. */
  readSkillFile(skill: SkillEntry | Skill, uri: string, options?: CallOptions): Promise<SkillFile> {
    return this.skills.readFile(skill, uri, options);
  }

  // ---- subscriptions, logging, liveness -------------------------------------------------

  /**
   * Hear of changes to a resource through `onresourceupdated`. Legacy: `resources/subscribe`.
   * 2026-07-28: the client's own `subscriptions/listen` stream, reopened with the URI added.
   */
  async subscribeResource(uri: string, options?: CallOptions): Promise<void> {
    if (this.conn.connectedEra() === 'modern') return this.subscriptions.follow(uri);
    await this.emptyRequest(ClientMethod.Subscribe, { uri }, options);
  }

  async unsubscribeResource(uri: string, options?: CallOptions): Promise<void> {
    if (this.conn.connectedEra() === 'modern') return this.subscriptions.unfollow(uri);
    await this.emptyRequest(ClientMethod.Unsubscribe, { uri }, options);
  }

  /**
   * The least severe level the server should log at. Legacy: `logging/setLevel`.
   * 2026-07-28: sent with every later request (the revision has no session to set it on).
   */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    const conn = this.conn;
    if (conn.connectedEra() === 'modern') {
      conn.logLevel = level;
      conn.setVersion(conn.peer!, conn.server!.version);
      return;
    }
    await this.emptyRequest(ClientMethod.SetLevel, { level }, options);
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28) and resolves once the server
   * acknowledged it. Its notifications reach `onlistchanged`, `onresourceupdated` and
   * `onnotification` as usual.
   */
  listen(
    filter: SubscriptionFilter,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Subscription> {
    return this.subscriptions.listen(filter, options);
  }

  /**
   * Liveness. Legacy: `ping`. 2026-07-28 removed ping; `server/discover` (which every
   * server must answer) stands in.
   */
  async ping(options?: CallOptions): Promise<void> {
    if (this.conn.connectedEra() === 'modern') {
      await this.pipeline.requestChecked(
        ClientMethod.Discover,
        undefined,
        'DiscoverResultSchema',
        undefined,
        options,
      );
      return;
    }
    await this.emptyRequest(ClientMethod.Ping, undefined, options);
  }

  /** Tells the server the roots changed (legacy; 2026-07-28 asks for roots per request). */
  async notifyRootsChanged(): Promise<void> {
    if (this.conn.connectedEra() === 'modern') return;
    await this.conn.connectedPeer().notify(Notification.RootsListChanged);
  }

  // ---- tasks (2025-11-25) ----------------------------------------------------------------

  /**
   * Calls a tool as a task (2025-11-25 task augmentation): resolves with the task as soon
   * as the server accepted it. `waitForTask` gets its result.
   */
  callToolAsTask(
    params: CallToolParams,
    task: { ttl?: number } = {},
    options?: CallOptions,
  ): Promise<Task> {
    return this.tasks.callToolAsTask(params, task, options);
  }

  getTask(taskId: string, options?: CallOptions): Promise<Task> {
    return this.tasks.get(taskId, options);
  }

  /** `tasks/result`: blocks until the task ends, then its tool result. */
  getTaskResult(taskId: string, options?: CallOptions): Promise<CallToolResult> {
    return this.tasks.result(taskId, options);
  }

  cancelTask(taskId: string, options?: CallOptions): Promise<Task> {
    return this.tasks.cancel(taskId, options);
  }

  listTasks(options?: CallOptions): Promise<Task[]> {
    return this.tasks.list(options);
  }

  /**
   * Polls a task with `tasks/get` at the server's `pollInterval` until it ends or needs
   * input, then fetches its result with `tasks/result` (which carries the server's
   * requests for input to the handlers). Aborting the signal cancels the task.
   */
  waitForTask(
    taskId: string,
    options: CallOptions & { onstatus?: (task: Task) => void } = {},
  ): Promise<CallToolResult> {
    return this.tasks.wait(taskId, options);
  }

  // ---- the tasks extension (2026-07-28) ---------------------------------------------------

  /**
   * Follows a task of the tasks extension by id to its tool result: the call a host
   * persisted (`CallOptions.ontask`) before a restart, from any client of the same server.
   * Aborting the signal cancels the task.
   */
  resumeTask(taskId: string, options?: TaskFollowOptions): Promise<CallToolResult> {
    return this.tasksExt.resume(taskId, options);
  }

  /** `tasks/get` of the tasks extension: the task as the server describes it now. */
  getExtensionTask(taskId: string, options?: CallOptions): Promise<ExtensionTask> {
    return this.tasksExt.get(taskId, {
      ...options,
      clientCapabilities: this.tasksExt.capabilities(options),
    });
  }

  /** `tasks/cancel` of the tasks extension. */
  cancelExtensionTask(taskId: string, options?: CallOptions): Promise<void> {
    return this.tasksExt.cancel(taskId, options);
  }

  /** `tools/call` with the tasks extension declared: a result, or a task followed to one. */
  private async callToolWithTasks(
    params: CallToolParams,
    options: CallOptions,
  ): Promise<CallToolResult | TaskHandle> {
    const raw = await this.pipeline
      .request(ClientMethod.CallTool, params as unknown as Record<string, unknown>, {
        ...options,
        clientCapabilities: this.tasksExt.capabilities(options),
      })
      .catch(mapRpcError);
    return this.taskAnswer(params, raw, options);
  }

  /** A `tools/call` answer when the extension was declared: a result, a handle, or a task followed. */
  private async taskAnswer(
    params: CallToolParams,
    raw: unknown,
    options: CallOptions,
  ): Promise<CallToolResult | TaskHandle> {
    if (!isTaskHandle(raw)) return this.checkedToolResult(params.name, raw);
    const task = this.tasksExt.check(ClientMethod.CallTool, raw);
    options.ontask?.(task);
    if (options.tasks === 'return') return raw;
    const result = await this.tasksExt.follow(task, options);
    if (this.options.validateOutputSchemas === false || !this.lists.outputSchemas.has(params.name))
      return result;
    return this.lists.outputSchemas.check(this.conn.label, params.name, result);
  }

  // ---- the rest --------------------------------------------------------------------------

  async close(): Promise<void> {
    await this.subscriptions.close();
    await this.conn.peer?.close();
  }

  /** Sends any request; the result is checked against `schema`. */
  async call<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options?: CallOptions,
  ): Promise<z.output<S>> {
    // The same error mapping as the typed calls: -32042 is UrlElicitationRequiredError.
    const raw = await this.pipeline.request(method, params, options).catch(mapRpcError);
    return this.conn.checks.parse(method, schema, raw);
  }

  /**
   * A session renewal no request is waiting for: when it fails, the connection has no
   * session and cannot get one, so it is closed (`onclose`) after `onerror` heard why.
   */
  private renewOutsideRequest(peer: JsonRpcPeer, expired: SessionExpiredError): void {
    this.pipeline.renew(peer, expired.sessionId).catch((error: unknown) => {
      this.onerror?.(
        new ConnectionClosedError(
          `${this.conn.label}: session ${expired.sessionId} expired and a new one could not be started: ${(error as Error).message}`,
          { cause: error, code: ErrorCode.SessionExpired },
        ),
      );
      void peer.close().catch(() => {});
    });
  }

  /** A new session replaced one the server forgot: what the old one listed may be stale. */
  private sessionRenewed(): void {
    for (const list of ['tools', 'prompts', 'resources', 'resourceTemplates'])
      this.lists.cache.invalidate(list);
    this.options.onsessionrenewed?.();
  }

  /** One caller-driven round: an `input_required` result is checked and returned as is. */
  private async inputRound<T>(
    method: string,
    params: Record<string, unknown>,
    options: InputRoundOptions,
    final: (raw: unknown) => T | Promise<T>,
  ): Promise<T | InputRequiredResult> {
    const raw = await this.pipeline.request(method, params, options).catch(mapRpcError);
    if (isInputRequired(raw))
      return this.conn.checks.check<InputRequiredResult>(method, raw, 'InputRequiredResultSchema');
    return final(raw);
  }

  /** A `tools/call` result checked as `callTool` checks it (output schema included). */
  private async checkedToolResult(name: string, raw: unknown): Promise<CallToolResult> {
    const result = await this.conn.checks.toolResult(raw);
    if (this.options.validateOutputSchemas === false || !this.lists.outputSchemas.has(name))
      return result;
    return this.lists.outputSchemas.check(this.conn.label, name, result);
  }

  /** A request whose result is empty (ping, setLevel, subscribe). */
  private emptyRequest(
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
  ): Promise<Record<string, unknown>> {
    return this.pipeline.requestChecked(method, params, 'ResultSchema', fastEmptyResult, options);
  }
}

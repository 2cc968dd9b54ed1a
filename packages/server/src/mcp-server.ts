import {
  globalInstrumentation,
  type McpInstrumentation,
  RpcError,
  RpcErrorCode,
  type Transport,
} from '@mcpkit/jsonrpc';
import {
  type Implementation,
  McpErrorCode,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  type ServerCapabilities,
} from '@mcpkit/protocol';
import { checkCapabilities } from './check-capabilities.js';
import { invalidParams, McpServerError, methodNotFound, ServerErrorCode } from './errors.js';
import { DEFAULT_PAGE_SIZE, paginate } from './pagination.js';
import { RequestStateSeal } from './request-state.js';
import { runWithInput } from './run-with-input.js';
import { ServerSession, type ServerSessionOptions } from './server-session.js';
import {
  declaresTasks,
  isToolTaskReturn,
  runTaskInPlace,
  TASKS_EXTENSION,
  TaskStore,
  type TaskStoreOptions,
  type ToolTaskReturn,
  tasksNotDeclared,
} from './tasks-ext.js';
import type {
  CacheHints,
  Completer,
  HandlerContext,
  PromptDefinition,
  PromptHandler,
  Registration,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  SubscriptionContext,
  SubscriptionHook,
  TemplateReader,
  ToolDefinition,
  ToolHandler,
} from './types.js';
import { UriTemplate } from './uri-template.js';

export interface McpServerOptions {
  /** `serverInfo`: name and version are required. */
  info: Implementation;
  instructions?: string;
  /** Revisions served, oldest first; every published one by default. */
  versions?: readonly ProtocolVersion[];
  /**
   * Capabilities to declare. By default they follow what is registered when a client asks
   * (tools, prompts, resources, completions), plus logging.
   */
  capabilities?: ServerCapabilities;
  /** Items per page of list results. */
  pageSize?: number;
  /** 2026-07-28 caching hints on list and read results and on `server/discover`. */
  cacheHints?: CacheHints;
  /** HMAC key for `requestState` (random per process by default). */
  requestStateSecret?: Uint8Array | string;
  /** How long a `requestState` stays valid. */
  requestStateTtlMs?: number;
  /** Rounds of input a handler may ask for within one request before it is failed. */
  maxInputRounds?: number;
  /** Handler crashes and other problems no client should see. */
  onerror?: (error: Error) => void;
  /**
   * Hooks that observe each request (`@mcpkit/otel` implements them); by default the
   * process-wide ones of `setGlobalInstrumentation`, if any; `false`: none.
   */
  instrumentation?: McpInstrumentation | false;
  /** A subscriber starts following a resource (see `SubscriptionHook`). */
  onsubscribe?: SubscriptionHook;
  /** A subscriber stops following a resource: unsubscribe, its connection or stream ended. */
  onunsubscribe?: SubscriptionHook;
  /**
   * A `tools/call` for a name that is not registered: the tool to run for it (a gateway's
   * other name for one of its tools, a tool it serves without listing it), or `undefined`
   * for the usual unknown-tool error. It may throw an `RpcError` (a refusal), which the
   * client gets as the call's JSON-RPC error.
   */
  resolveTool?: (name: string) => ResolvedTool | undefined;
  /**
   * Whether one caller sees a registered tool, prompt, resource or template (by its name,
   * URI or URI template) in its lists: a gateway's per-client policy. Everything is listed
   * when absent. It only filters lists; a call to a hidden name is the handler's to refuse.
   */
  visible?: (kind: VisibleKind, name: string, ctx: HandlerContext) => boolean;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): declared, and a tool
   * that returns `toolTask(...)` answers a declaring client with a task handle, served by
   * `tasks/get`, `tasks/update`, `tasks/cancel` and `subscriptions/listen`. Without it such a
   * tool's calls are awaited in place.
   */
  tasks?: TaskStoreOptions | boolean;
  /**
   * With `tasks`: answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task this
   * server did not create (a gateway's backend's task), or returns `undefined` to let the
   * server's own store answer (an unknown id: -32602).
   */
  routeTask?: (
    method: 'tasks/get' | 'tasks/update' | 'tasks/cancel',
    params: Record<string, unknown>,
    ctx: HandlerContext,
  ) => unknown;
}

/** What `McpServerOptions.visible` is asked about. */
export type VisibleKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** A tool run for a name that is not registered (`McpServerOptions.resolveTool`). */
export interface ResolvedTool {
  /** The name the tool goes by (in errors and request state). */
  name: string;
  definition: ToolDefinition;
  handler: ToolHandler;
}

export const serverDefaults = {
  pageSize: DEFAULT_PAGE_SIZE,
  cacheHints: { ttlMs: 0, cacheScope: 'private' } as CacheHints,
  maxInputRounds: 8,
} as const;

interface ToolEntry {
  name: string;
  definition: ToolDefinition;
  handler: ToolHandler;
}
interface PromptEntry {
  name: string;
  definition: PromptDefinition;
  handler: PromptHandler;
}
interface ResourceEntry {
  uri: string;
  definition: ResourceDefinition;
  read: ResourceReader;
}
interface TemplateEntry {
  template: UriTemplate;
  definition: ResourceTemplateDefinition;
  read: TemplateReader;
}

type ListKind = 'tools' | 'prompts' | 'resources';
const LIST_KINDS: readonly ListKind[] = ['tools', 'prompts', 'resources'];

/**
 * An MCP server: what it offers (tools, prompts, resources, templates, completions) and how
 * each request is answered, in both eras. Connect it to any number of transports
 * (`connect`) or serve it with `serveStdio` / `createStreamableHttpHandler`.
 */
export class McpServer {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly versions: readonly ProtocolVersion[];
  readonly pageSize: number;
  readonly cacheHints: CacheHints;
  readonly maxInputRounds: number;
  /** @internal */
  readonly seal: RequestStateSeal;
  onerror: ((error: Error) => void) | undefined;
  /** @internal Set only when a hook observes requests. */
  readonly instrumentation:
    | (Required<Pick<McpInstrumentation, 'serverRequest'>> &
        Pick<McpInstrumentation, 'enabled' | 'sessionStart' | 'clientRequest'>)
    | undefined;
  onsubscribe: SubscriptionHook | undefined;
  onunsubscribe: SubscriptionHook | undefined;
  private readonly resolveTool: ((name: string) => ResolvedTool | undefined) | undefined;
  private readonly routeTask: McpServerOptions['routeTask'];
  private readonly visible:
    | ((kind: VisibleKind, name: string, ctx: HandlerContext) => boolean)
    | undefined;

  private readonly explicitCapabilities: ServerCapabilities | undefined;
  private readonly tools = new Map<string, ToolEntry>();
  private readonly prompts = new Map<string, PromptEntry>();
  private readonly resources = new Map<string, ResourceEntry>();
  private readonly templates = new Map<string, TemplateEntry>();
  private readonly sessions = new Set<ServerSession>();
  private readonly changed = new Set<ListKind>();
  private closed = false;
  /** @internal The tasks extension's store, when `tasks` is enabled. */
  readonly taskStore: TaskStore | undefined;
  private derivedCapabilities: ServerCapabilities | undefined;

  constructor(options: McpServerOptions) {
    if (!options?.info?.name || !options.info.version) {
      throw new TypeError('McpServer needs info: { name, version }');
    }
    this.info = options.info;
    this.instructions = options.instructions;
    this.versions = options.versions ?? PROTOCOL_VERSIONS;
    if (this.versions.length === 0) throw new TypeError('McpServer needs at least one version');
    this.explicitCapabilities = options.capabilities;
    this.pageSize = options.pageSize ?? serverDefaults.pageSize;
    this.cacheHints = options.cacheHints ?? serverDefaults.cacheHints;
    this.maxInputRounds = options.maxInputRounds ?? serverDefaults.maxInputRounds;
    this.seal = new RequestStateSeal({
      secret: options.requestStateSecret,
      ttlMs: options.requestStateTtlMs,
    });
    this.onerror = options.onerror;
    const hooks =
      options.instrumentation === false
        ? undefined
        : (options.instrumentation ?? globalInstrumentation());
    this.instrumentation = hooks?.serverRequest
      ? (hooks as Required<Pick<McpInstrumentation, 'serverRequest'>> &
          Pick<McpInstrumentation, 'enabled' | 'sessionStart' | 'clientRequest'>)
      : undefined;
    this.onsubscribe = options.onsubscribe;
    this.onunsubscribe = options.onunsubscribe;
    this.resolveTool = options.resolveTool;
    this.visible = options.visible;
    this.routeTask = options.routeTask;
    const tasks = options.tasks;
    this.taskStore =
      tasks === undefined || tasks === false
        ? undefined
        : new TaskStore(
            tasks === true ? {} : tasks,
            (taskId, detailed) => {
              for (const session of this.sessions) session.taskChanged(taskId, detailed);
            },
            (error) => this.reportError(error),
          );
  }

  /** Connected sessions (a stdio connection, an HTTP session, an open 2026-07-28 exchange). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  registerTool(name: string, definition: ToolDefinition, handler: ToolHandler): Registration {
    return this.add(this.tools, name, { name, definition, handler }, 'tools', 'tool');
  }

  registerPrompt(name: string, definition: PromptDefinition, handler: PromptHandler): Registration {
    return this.add(this.prompts, name, { name, definition, handler }, 'prompts', 'prompt');
  }

  registerResource(
    uri: string,
    definition: ResourceDefinition,
    read: ResourceReader,
  ): Registration {
    return this.add(this.resources, uri, { uri, definition, read }, 'resources', 'resource');
  }

  registerResourceTemplate(
    uriTemplate: string,
    definition: ResourceTemplateDefinition,
    read: TemplateReader,
  ): Registration {
    const entry = { template: new UriTemplate(uriTemplate), definition, read };
    return this.add(this.templates, uriTemplate, entry, 'resources', 'resource template');
  }

  /** Tells subscribed clients that a resource changed. */
  resourceUpdated(uri: string): void {
    for (const session of this.sessions) session.resourceUpdated(uri);
  }

  /** Tells clients a list changed (registrations do this themselves). */
  listChanged(kind: ListKind): void {
    this.derivedCapabilities = undefined;
    if (this.changed.size === 0) {
      // Coalesce the registrations of one tick into one notification per list.
      queueMicrotask(() => {
        const kinds = [...this.changed];
        this.changed.clear();
        for (const session of this.sessions) for (const k of kinds) session.listChanged(k);
      });
    }
    this.changed.add(kind);
  }

  /**
   * Call before changing what `visible` answers (a gateway's reloaded access policy), and
   * the function it returns after: each session whose lists, as `visible` shows them to the
   * caller of its latest list (or `subscriptions/listen`) request, changed hears
   * `list_changed` for those lists only. A session that never listed hears nothing.
   */
  visibilityChanging(): () => void {
    const before = new Map<ServerSession, string[]>();
    if (this.visible)
      for (const session of this.sessions) {
        const view = this.viewOf(session);
        if (view) before.set(session, view);
      }
    return () => {
      for (const [session, was] of before) {
        const now = this.sessions.has(session) ? this.viewOf(session) : undefined;
        if (!now) continue;
        LIST_KINDS.forEach((kind, i) => {
          if (now[i] !== was[i]) session.listChanged(kind);
        });
      }
    };
  }

  /** What a session's viewer sees of each list (`LIST_KINDS` order), as comparable text. */
  private viewOf(session: ServerSession): string[] | undefined {
    const ctx = session.viewer;
    if (ctx === undefined) return undefined;
    const names = (kind: VisibleKind, keys: Iterable<string>) =>
      this.shown(kind, [...keys], (k) => k, ctx);
    return [
      JSON.stringify(names('tool', this.tools.keys())),
      JSON.stringify(names('prompt', this.prompts.keys())),
      JSON.stringify([
        names('resource', this.resources.keys()),
        names('resourceTemplate', this.templates.keys()),
      ]),
    ];
  }

  /** Serves this server over `transport` (started here) and resolves once it is listening. */
  async connect(transport: Transport, options: ServerSessionOptions = {}): Promise<ServerSession> {
    if (this.closed) throw new McpServerError(ServerErrorCode.Closed, 'the McpServer is closed');
    const session = new ServerSession(this, transport, options);
    this.sessions.add(session);
    session.onclose = () => this.sessions.delete(session);
    await session.start();
    return session;
  }

  /** Ends every open `subscriptions/listen` gracefully and closes every session. */
  async close(): Promise<void> {
    this.closed = true;
    this.taskStore?.close();
    await Promise.allSettled([...this.sessions].map((s) => s.close()));
    this.sessions.clear();
  }

  /** The capabilities declared now. */
  capabilities(): ServerCapabilities {
    if (this.explicitCapabilities) return this.explicitCapabilities;
    // Asked on every request: computed once per change of the registry.
    this.derivedCapabilities ??= this.deriveCapabilities();
    return this.derivedCapabilities;
  }

  private deriveCapabilities(): ServerCapabilities {
    const caps: ServerCapabilities = { logging: {} };
    if (this.tools.size > 0) caps.tools = { listChanged: true };
    if (this.prompts.size > 0) caps.prompts = { listChanged: true };
    if (this.resources.size > 0 || this.templates.size > 0) {
      caps.resources = { listChanged: true, subscribe: true };
    }
    if (this.hasCompleters()) caps.completions = {};
    if (this.taskStore) (caps as Record<string, unknown>).extensions = { [TASKS_EXTENSION]: {} };
    return caps;
  }

  /**
   * @internal Answers one feature request (`tools/*`, `prompts/*`, `resources/*`,
   * `completion/complete`): a value or a promise; may throw. Not `async`, so a tool's
   * promise reaches the peer without another layer.
   */
  dispatch(method: string, params: Record<string, unknown>, ctx: HandlerContext): unknown {
    const caps = this.capabilities();
    switch (method) {
      case 'tools/list':
        if (!caps.tools) break;
        return this.listTools(params.cursor, ctx);
      case 'tools/call':
        if (!caps.tools) break;
        return this.callTool(params, ctx);
      case 'prompts/list':
        if (!caps.prompts) break;
        return this.page(
          this.shown('prompt', [...this.prompts.values()], (p) => p.name, ctx).map(describePrompt),
          params.cursor,
          'prompts',
        );
      case 'prompts/get':
        if (!caps.prompts) break;
        return this.getPrompt(params, ctx);
      case 'resources/list':
        if (!caps.resources) break;
        return this.page(
          this.shown('resource', [...this.resources.values()], (r) => r.uri, ctx).map((r) => ({
            uri: r.uri,
            ...r.definition,
          })),
          params.cursor,
          'resources',
        );
      case 'resources/templates/list':
        if (!caps.resources) break;
        return this.page(
          this.shown(
            'resourceTemplate',
            [...this.templates.values()],
            (t) => t.template.template,
            ctx,
          ).map(({ template, definition }) => {
            const { complete: _, ...rest } = definition;
            return { uriTemplate: template.template, ...rest };
          }),
          params.cursor,
          'resourceTemplates',
        );
      case 'resources/read':
        if (!caps.resources) break;
        return this.readResource(params, ctx);
      case 'completion/complete':
        if (!caps.completions) break;
        return this.complete(params);
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel': {
        const store = this.taskStore;
        if (!store || ctx.era !== 'modern') break;
        if (!declaresTasks(ctx)) throw tasksNotDeclared(method);
        const routed = this.routeTask?.(method, params, ctx);
        if (routed !== undefined) return routed;
        if (method === 'tasks/get') return store.get(params, ctx);
        if (method === 'tasks/update') return store.update(params, ctx);
        return store.cancel(params, ctx);
      }
    }
    throw methodNotFound(method);
  }

  /** @internal A tool's input schema (the HTTP binding checks `Mcp-Param-*` headers against it). */
  toolInputSchema(name: string): unknown {
    const tool = this.tools.get(name);
    if (tool || !this.resolveTool) return tool?.definition.inputSchema;
    try {
      return this.resolveTool(name)?.definition.inputSchema;
    } catch {
      // A refused name: the call itself says why.
      return undefined;
    }
  }

  /** @internal Whether a resource URI exists (subscriptions refuse unknown ones). */
  hasResource(uri: string): boolean {
    return (
      this.resources.has(uri) || [...this.templates.values()].some((t) => t.template.match(uri))
    );
  }

  /** @internal Runs `onunsubscribe`; a failure is reported, never thrown (the subscriber is gone). */
  unsubscribed(uri: string, context: SubscriptionContext): void {
    if (!this.onunsubscribe) return;
    Promise.resolve()
      .then(() => this.onunsubscribe?.(uri, context))
      .catch((error: unknown) =>
        this.reportError(error instanceof Error ? error : new Error(String(error))),
      );
  }

  /** @internal */
  reportError(error: Error): void {
    this.onerror?.(error);
  }

  private add<T>(
    map: Map<string, T>,
    key: string,
    entry: T,
    kind: ListKind,
    what: string,
  ): Registration {
    if (typeof key !== 'string' || key === '') throw new TypeError(`a ${what} needs a name`);
    if (map.has(key)) {
      throw new McpServerError(
        ServerErrorCode.Duplicate,
        `${what} ${JSON.stringify(key)} is already registered; remove() it first`,
      );
    }
    map.set(key, entry);
    this.listChanged(kind);
    return {
      remove: () => {
        if (map.get(key) === entry && map.delete(key)) this.listChanged(kind);
      },
    };
  }

  private page(items: unknown[], cursor: unknown, key: string): Record<string, unknown> {
    const { page, nextCursor } = paginate(items, cursor, this.pageSize);
    return nextCursor === undefined ? { [key]: page } : { [key]: page, nextCursor };
  }

  /** The entries this caller sees (`visible`); all of them without the option. */
  private shown<T>(
    kind: VisibleKind,
    entries: T[],
    nameOf: (entry: T) => string,
    ctx: HandlerContext,
  ): T[] {
    const visible = this.visible;
    return visible ? entries.filter((e) => visible(kind, nameOf(e), ctx)) : entries;
  }

  private listTools(cursor: unknown, ctx: HandlerContext): Record<string, unknown> {
    const entries = this.shown('tool', [...this.tools.values()], (t) => t.name, ctx);
    const tools = entries.map(({ name, definition }) => {
      const { requiredClientCapabilities: _, inputSchema, ...rest } = definition;
      return { name, ...rest, inputSchema: inputSchema ?? { type: 'object' } };
    });
    return this.page(tools, cursor, 'tools');
  }

  private callTool(params: Record<string, unknown>, ctx: HandlerContext): unknown {
    const name = params.name;
    const tool =
      typeof name === 'string' ? (this.tools.get(name) ?? this.resolveTool?.(name)) : undefined;
    if (!tool) throw invalidParams(`Unknown tool: ${JSON.stringify(name)}`, { name });
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw invalidParams(`tools/call "${tool.name}": arguments must be an object`);
    }
    checkCapabilities(tool.definition.requiredClientCapabilities, ctx, `tool "${tool.name}"`);
    try {
      return runWithInput(
        this,
        params,
        ctx,
        tool.name,
        (c) => tool.handler(args as Record<string, unknown>, c),
        (error) => toolFailure(error, ctx),
        (result) => (isToolTaskReturn(result) ? this.serveTask(result, ctx, tool.name) : result),
      );
    } catch (error) {
      return toolFailure(error, ctx);
    }
  }

  /** A handler's `toolTask(...)`: a task handle for a declaring client, else awaited in place. */
  private serveTask(ret: ToolTaskReturn, ctx: HandlerContext, name: string): unknown {
    if (this.taskStore && ctx.era === 'modern' && declaresTasks(ctx))
      return this.taskStore.serve(ret, ctx, name);
    return runTaskInPlace(ret, ctx, name).catch((error) => toolFailure(error, ctx));
  }

  private async getPrompt(params: Record<string, unknown>, ctx: HandlerContext): Promise<unknown> {
    const name = params.name;
    const prompt = typeof name === 'string' ? this.prompts.get(name) : undefined;
    if (!prompt) throw invalidParams(`Unknown prompt: ${JSON.stringify(name)}`, { name });
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw invalidParams(`prompts/get "${prompt.name}": arguments must be an object`);
    }
    for (const arg of prompt.definition.arguments ?? []) {
      if (arg.required && typeof args[arg.name] !== 'string') {
        throw invalidParams(`prompts/get "${prompt.name}": argument "${arg.name}" is required`);
      }
    }
    return runWithInput(this, params, ctx, prompt.name, (c) =>
      prompt.handler(args as Record<string, string>, c),
    );
  }

  private async readResource(
    params: Record<string, unknown>,
    ctx: HandlerContext,
  ): Promise<unknown> {
    const uri = params.uri;
    if (typeof uri !== 'string') throw invalidParams('resources/read needs a "uri" string');
    const direct = this.resources.get(uri);
    if (direct) return runWithInput(this, params, ctx, uri, (c) => direct.read(uri, c));
    for (const entry of this.templates.values()) {
      const vars = entry.template.match(uri);
      if (vars) return runWithInput(this, params, ctx, uri, (c) => entry.read(uri, vars, c));
    }
    // 2026-07-28 retired -32002 in favour of -32602; older revisions keep it.
    const code = ctx.era === 'modern' ? RpcErrorCode.InvalidParams : McpErrorCode.ResourceNotFound;
    throw new RpcError(code, `Resource not found: ${uri}`, { uri });
  }

  private async complete(params: Record<string, unknown>): Promise<unknown> {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (!ref || typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw invalidParams('completion/complete needs ref and argument { name, value }');
    }
    let completer: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = this.prompts.get(String(ref.name));
      if (!prompt) throw invalidParams(`Unknown prompt: ${JSON.stringify(ref.name)}`);
      completer = prompt.definition.complete?.[argument.name];
    } else if (ref.type === 'ref/resource') {
      const entry = this.templates.get(String(ref.uri));
      if (!entry && !this.resources.has(String(ref.uri))) {
        throw invalidParams(`Unknown resource template: ${JSON.stringify(ref.uri)}`);
      }
      completer = entry?.definition.complete?.[argument.name];
    } else {
      throw invalidParams(`Unknown completion ref type ${JSON.stringify(ref.type)}`);
    }
    const context = (params.context as { arguments?: Record<string, string> } | undefined) ?? {};
    const all = completer
      ? await completer(argument.value, { arguments: context.arguments ?? {} })
      : [];
    // The spec caps a completion at 100 values.
    const values = all.slice(0, 100);
    return { completion: { values, total: all.length, hasMore: all.length > values.length } };
  }

  private hasCompleters(): boolean {
    for (const p of this.prompts.values()) if (p.definition.complete) return true;
    for (const t of this.templates.values()) if (t.definition.complete) return true;
    return this.prompts.size > 0 || this.templates.size > 0;
  }
}

/** Tool failures go to the model as results; protocol errors and aborts stay errors. */
function toolFailure(error: unknown, ctx: HandlerContext): unknown {
  if (RpcError.isInstance(error) || ctx.cancellation.aborted) throw error;
  const text = error instanceof Error ? error.message : String(error);
  return { content: [{ type: 'text', text }], isError: true };
}

function describePrompt({ name, definition }: PromptEntry): Record<string, unknown> {
  const { complete: _, ...rest } = definition;
  return { name, ...rest };
}

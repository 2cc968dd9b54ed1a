import { randomUUID } from 'node:crypto';
import type { InputRoundOptions, McpClient, ServerRequestContext } from '@mcpkit/client';
import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import type { ManagerHandlers, McpManager, ServerState } from '@mcpkit/manager';
import type { Implementation, Prompt, Tool } from '@mcpkit/protocol';
import {
  type Completer,
  type HandlerContext,
  type InputRequest,
  McpServer,
  type Registration,
  type ResolvedTool,
  TASKS_EXTENSION,
  type ToolDefinition,
  type ToolHandler,
  type VisibleKind,
} from '@mcpkit/server';
import type { AccessControl } from './access/access-control.js';
import type { AccessTarget } from './access/policy.js';
import {
  apply,
  type BackendLists,
  fetchLists,
  metaOf,
  templateVariables,
} from './backend-lists.js';
import { CallForwarder } from './call-forwarder.js';
import { composeNames } from './compose/names.js';
import { transformTool } from './compose/transform.js';
import { type CompositionView, everything } from './compose/view.js';
import { assignResources, ResourceOwners } from './resource-owners.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { logTarget, originOf } from './routing.js';
import {
  type CatalogTool,
  ToolSearch,
  type ToolSearchOptions,
  visibleToModel,
} from './search/search-tools.js';
import type { SoleClient } from './sole-client.js';
import { TaskRoutes } from './task-routes.js';

/**
 * MCP Apps: a tool an App view may call (`_meta.ui.visibility` absent, the extension's
 * default `["model", "app"]`, or naming `"app"`). A model-only tool keeps its served name only.
 */
function visibleToApp(meta: Record<string, unknown> | undefined): boolean {
  const visibility = (meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return !Array.isArray(visibility) || visibility.includes('app');
}

export interface GatewayOptions {
  manager: McpManager;
  /** The backends served, in order. */
  servers: readonly string[];
  info: Implementation;
  /**
   * How tools and prompts are named: `<server><separator><name>` by the manager's host-name
   * rules (separator `__` by default); `prefix: false` passes names through (one backend).
   */
  naming?: { prefix?: boolean; separator?: string };
  /** Which backend tools are served (`toolFilter` makes one from patterns). All by default. */
  filter?: (server: string, tool: string) => boolean;
  /** How long a call waits for a reconnecting backend, and for its answer. */
  callTimeoutMs: number;
  /** Quiet time before list changes are applied (and announced once). */
  listDebounceMs?: number;
  /**
   * HTTP, 2025-11-25 sessions (SEP-1699 polling): a forwarded `tools/call` still running
   * after this long has its SSE stream closed (after the priming event and `retry`); the
   * client resumes with `Last-Event-ID` and gets the answer. Off when undefined.
   */
  ssePollAfterMs?: number;
  /**
   * The listener's one client (stdio), asked a backend's request that belongs to no call.
   * Over HTTP (many sessions) there is none, and such a request is refused.
   */
  soleClient?: SoleClient;
  /**
   * A backend's failure as the gateway's client reads it (a tool result's text, a JSON-RPC
   * error's message), in the host's words: return the text, or `undefined` to pass the
   * error's own message. The errors carry facts (`MessageTooLargeError.limitBytes`,
   * `HttpError.status`, codes); a host words its next step in its own terms. The backend's
   * own message by default.
   */
  describeError?: (error: unknown, server: string) => string | undefined;
  /**
   * What the gateway could not do (a list unread, a name collision), with the error it is
   * about when there is one (its facts, for a host to word advice from). Ignored by default.
   */
  warn?: (text: string, error?: Error) => void;
  /**
   * What a gateway config gives this gateway to serve (`compositionView(config, endpoint)`):
   * which of `servers` and of their tools, prefixes, tool and argument transforms. Swapped
   * at run time with `compose()`. Everything in `servers` by default.
   */
  composition?: CompositionView;
  /**
   * `search`: the endpoint serves a search tool and a call-by-name tool instead of listing
   * every tool (`toolSearch: true`, below); `all` (the default) lists the tools.
   */
  mode?: 'all' | 'search';
  /**
   * Search mode, for clients that take only so many tools: `tools/list` gives exactly two
   * tools, `search_tools` (`{ query, limit? }`: the best matches among the served tools, each
   * with its name, description and input schema) and `call_tool` (`{ name, arguments? }`:
   * calls a served tool by its name, forwarded as a listed tool's call is). `true` for the
   * defaults. Off by default: every tool is listed.
   */
  toolSearch?: boolean | ToolSearchOptions;
  /**
   * Per-client access (a gateway config's `access`, `AccessControl`): what each caller
   * (`ctx.authInfo`) lists and calls, rate limits, the audit log, the identity backends are
   * given. One instance for every endpoint. Everything for everyone when absent.
   */
  access?: AccessControl;
}

/** A forwarded request, as the access control sees it. */
type Forwarded = Omit<AccessTarget, 'endpoint'> & {
  method: string;
  params: Record<string, unknown>;
};

/** One served tool: its definition and handler, and the backend's own name for it. */
interface ServedTool extends CatalogTool {
  server: string;
  /** The backend's name for it; undefined for the gateway's own `authenticate` tool. */
  original: string | undefined;
}

/**
 * Many backends behind one `McpServer`: the backends' tools, prompts and resources under
 * gateway names, calls forwarded with progress, cancellation, logging and `_meta`, and the
 * backends' own requests (elicitation, sampling, roots) forwarded to the client whose call
 * caused them. The lists follow the manager's events; a backend that reconnects keeps its
 * entries, and clients hear `list_changed` only when a served list really changed.
 */
export class Gateway {
  readonly server: McpServer;
  private readonly lists = new Map<string, BackendLists>();
  private readonly needsAuth = new Set<string>();
  private readonly registered = {
    tools: new Map<string, { key: string; reg: Registration }>(),
    prompts: new Map<string, { key: string; reg: Registration }>(),
    resources: new Map<string, { key: string; reg: Registration }>(),
    templates: new Map<string, { key: string; reg: Registration }>(),
  };
  /** Runs the forwarded calls, and knows which are running on each backend. */
  private readonly calls: CallForwarder;
  private readonly refreshing = new Map<string, number>();
  /** Which backend owns each served URI and template. */
  private readonly owners = new ResourceOwners();
  /** Resource collisions warned about (each once while it lasts). */
  private warnedResources = new Set<string>();
  /** Clients' resource subscriptions, forwarded to the owning backends. */
  private readonly subscriptions: ResourceSubscriptions;
  /** Backends' tasks passed through to callers that declared the tasks extension. */
  private readonly taskRoutes = new TaskRoutes((server) => this.connectedClient(server));
  private syncTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private closed = false;
  private composition: CompositionView;
  /** Transform problems already warned about (one warning per problem per config). */
  private warned = new Set<string>();
  /** Every tool served (in search mode too, where only the two search tools are listed). */
  private served = new Map<string, ServedTool>();
  /** Backend names → the served tools of that name (a call by a backend's own name). */
  private byOriginal = new Map<string, ServedTool[]>();
  private readonly search: ToolSearch | undefined;
  /** Served prompt names → their backend and its name for them (the access policy). */
  private promptOrigins = new Map<string, { server: string; original: string }>();
  /** Served resource templates → their backend (the access policy). */
  private templateOrigins = new Map<string, string>();

  private readonly options: GatewayOptions & { warn: (text: string, error?: Error) => void };

  constructor(options: GatewayOptions) {
    if (options.naming?.prefix === false && options.servers.length !== 1)
      throw new TypeError(
        `naming.prefix false needs exactly one server (${options.servers.length} given)`,
      );
    this.options = { ...options, warn: options.warn ?? (() => {}) };
    this.composition = options.composition ?? everything;
    this.calls = new CallForwarder(options);
    // An endpoint's `mode: 'search'` (a gateway config) is search mode with its defaults.
    const toolSearch = options.toolSearch ?? (options.mode === 'search' ? true : undefined);
    this.search = toolSearch
      ? new ToolSearch(
          toolSearch === true ? {} : toolSearch,
          () =>
            `tools of ${options.servers.length === 1 ? 'the server' : 'the servers'} ${options.servers.map((s) => `"${s}"`).join(', ')}`,
          options.access ? (name, ctx) => this.searchable(name, ctx) : undefined,
        )
      : undefined;
    this.server = new McpServer({
      info: options.info,
      // Every list may appear later (a backend connects after the client did): declared up front.
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        completions: {},
        logging: {},
        // The tasks extension: backends' tasks passed on or awaited (see TaskRoutes).
        extensions: { [TASKS_EXTENSION]: {} },
      },
      tasks: true,
      routeTask: (method, params, ctx) => this.taskRoutes.route(method, params, ctx),
      onerror: (error) => this.options.warn(`gateway: ${error.message}`, error),
      onsubscribe: (uri, { subscriber }) => this.subscriptions.subscribe(uri, subscriber),
      onunsubscribe: (uri, { subscriber }) => this.subscriptions.unsubscribe(uri, subscriber),
      resolveTool: (name) => this.resolveTool(name),
      ...(options.access
        ? { visible: (kind, name, ctx) => this.visibleTo(options.access!, kind, name, ctx) }
        : {}),
    });
    // A reloaded access policy: list_changed to each session whose lists it changed.
    if (options.access)
      this.unsubscribe.push(options.access.watchChanges(() => this.server.visibilityChanging()));
    // A client served before the backends connected already sees the two tools of search mode.
    if (this.search) apply(this.registered.tools, this.searchTools());
    this.subscriptions = new ResourceSubscriptions({
      owners: this.owners,
      client: (server) => this.connectedClient(server),
      timeoutMs: options.callTimeoutMs,
      warn: this.options.warn,
    });
    const { manager } = options;
    const served = new Set(options.servers);
    this.unsubscribe.push(
      manager.on('statechange', ({ name, state, previous }) => {
        // The same connection, only its list health changed (degraded or back): the lists
        // follow the list events, not this one.
        if (
          state.state === 'connected' &&
          previous?.state === 'connected' &&
          previous.client === state.client
        )
          return;
        if (served.has(name)) void this.refresh(name, state);
      }),
    );
    for (const kind of ['toolschange', 'promptschange', 'resourceschange'] as const)
      this.unsubscribe.push(
        manager.on(kind, ({ server }) => {
          const state = manager.state(server);
          if (served.has(server) && state) void this.refresh(server, state);
        }),
      );
    this.unsubscribe.push(
      manager.on('resourceupdated', ({ server, uri }) => {
        // Sent only to the sessions that subscribed to the served URI, and only when this
        // backend owns it: another backend's URI is never announced in its name.
        const uriServed = served.has(server) ? this.owners.servedOf(server, uri) : undefined;
        if (uriServed !== undefined) this.server.resourceUpdated(uriServed);
      }),
    );
    this.unsubscribe.push(
      manager.on('log', ({ server, params, relatedRequestId }) => {
        // A backend's log line goes to the one call it belongs to (routing.ts, logTarget);
        // a line that names none while calls of several clients run is given to none.
        const call = logTarget(this.calls.inflight.of(server), relatedRequestId);
        if (call) void call.ctx.log(params.level, params.data, params.logger).catch(() => {});
      }),
    );
  }

  /** Handlers the manager gives each backend's client: its requests come back through here. */
  static handlers(
    gateway: () => Gateway | readonly Gateway[] | undefined,
  ): (server: string) => ManagerHandlers {
    return (server) => {
      const gateways = () => {
        const found = gateway();
        return found === undefined ? [] : Array.isArray(found) ? found : [found as Gateway];
      };
      const forward =
        (method: string, capability: 'elicitation' | 'sampling') =>
        async (params: unknown, context: ServerRequestContext) =>
          (await Gateway.forward(gateways(), server, method, capability, params, context)) as never;
      return {
        // Declared to every backend: all the gateway can forward. Each request is then
        // refused when the calling client lacks what it needs (routing.ts, refuseUndeclared).
        elicitation: forward('elicitation/create', 'elicitation'),
        elicitationModes: ['form', 'url'],
        sampling: forward('sampling/createMessage', 'sampling'),
        samplingTools: true,
        roots: async (context) => {
          const answer = await Gateway.forward(
            gateways(),
            server,
            'roots/list',
            'roots',
            {},
            {
              ...context,
              signal: AbortSignal.any([context.signal, AbortSignal.timeout(60_000)]),
            },
          );
          return ((answer as { roots?: unknown[] } | undefined)?.roots ?? []) as never;
        },
      };
    };
  }

  /** Reads every served backend's lists once (after `connectAll`) and serves them. */
  async start(): Promise<void> {
    await Promise.all(
      this.options.servers.map((name) => {
        const state = this.options.manager.state(name);
        return state ? this.refresh(name, state) : undefined;
      }),
    );
    this.sync();
  }

  /**
   * `GET /healthz`: each backend's state — `degraded` for one that is connected but a list
   * of which failed, with the kinds of those lists — without errors' details or anything
   * from config; and the whole: `ok` (every backend connected, none degraded), `degraded`
   * (some backend not connected or degraded, at least one connected) or `down` (none
   * connected).
   */
  health(): {
    status: 'ok' | 'degraded' | 'down';
    servers: Array<{ server: string; state: string; degraded?: string[] }>;
    /**
     * With an access policy: `refusing` (every call) while it cannot be read, or while a
     * required audit log cannot be written; `audit` while the audit log is failing.
     */
    access?: ReturnType<AccessControl['health']>;
  } {
    const servers = this.options.servers.map((server) => {
      const state = this.options.manager.state(server);
      if (state?.state === 'connected' && state.degraded?.length)
        return { server, state: 'degraded', degraded: state.degraded.map((f) => f.list) };
      return { server, state: state?.state ?? 'unknown' };
    });
    const up = servers.filter((s) => s.state === 'connected' || s.state === 'degraded');
    const status =
      servers.length > 0 && up.length === 0
        ? 'down'
        : servers.every((s) => s.state === 'connected')
          ? 'ok'
          : 'degraded';
    const access = this.options.access?.health();
    return access ? { status, servers, access } : { status, servers };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.syncTimer);
    this.calls.close();
    for (const off of this.unsubscribe) off();
    await this.server.close();
  }

  /**
   * Swaps what this gateway serves (a reloaded config): the served lists are rebuilt at
   * once, and clients hear `list_changed` for each list that changed.
   */
  compose(composition: CompositionView): void {
    this.composition = composition;
    this.warned = new Set();
    this.sync();
  }

  /**
   * A backend's request, forwarded to the client whose call caused it, among the calls of
   * every gateway over one manager (one per endpoint).
   */
  private static async forward(
    gateways: readonly Gateway[],
    server: string,
    method: string,
    capability: 'elicitation' | 'sampling' | 'roots',
    params: unknown,
    context: ServerRequestContext,
  ): Promise<unknown> {
    const calls = gateways.flatMap((g) => g.calls.inflight.of(server));
    const body = (params ?? {}) as Record<string, unknown>;
    // No call to tie it to (a backend asking for roots at its start): only a face with one
    // client can still answer it.
    const sole = gateways.find((g) => g.options.soleClient)?.options.soleClient;
    if (calls.length === 0 && sole)
      return sole.ask(server, method, capability, body, context.signal);
    const call = originOf(calls, server, method, capability, context.relatedRequestId, body);
    // While its client has not answered, the call is "asking": a backend request that names
    // no call is not given to it (routing.ts), so one silent client blocks no other.
    call.asking++;
    const done = () => {
      call.asking--;
    };
    // 2026-07-28 clients are asked through an input_required result and their retry.
    if (call.ctx.era === 'modern') {
      const asked = call.ask(method as InputRequest['method'], body);
      asked.then(done, done);
      return asked;
    }
    // Bounded by the call's own timeout and ended by its cancellation or its client's
    // disconnect (the request's signal), whichever comes first: for that call only.
    const signal = AbortSignal.any([
      context.signal,
      call.signal,
      AbortSignal.timeout(gateways[0]!.options.callTimeoutMs),
    ]);
    const answered = Promise.race([
      call.ctx.request(method, body),
      new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    ]);
    answered.then(done, done);
    return answered;
  }

  /** Fetches a backend's lists after a change of state or list; serializes per backend. */
  private async refresh(name: string, state: ServerState): Promise<void> {
    const generation = (this.refreshing.get(name) ?? 0) + 1;
    this.refreshing.set(name, generation);
    if (state.state === 'needs-auth') this.needsAuth.add(name);
    else this.needsAuth.delete(name);
    if (state.state === 'failed' || state.state === 'disabled' || state.state === 'needs-auth') {
      this.lists.delete(name);
      this.scheduleSync();
      return;
    }
    // A pending backend keeps its last lists: a restart is not a change.
    if (state.state !== 'connected') return;
    try {
      // Backends log at every level; each client's own level filters what it is sent.
      if (state.client.serverCapabilities?.logging)
        await state.client.setLoggingLevel('debug').catch(() => {});
      const lists = await fetchLists(state.client, name);
      if (this.refreshing.get(name) !== generation || this.closed) return;
      this.lists.set(name, lists);
      void this.subscriptions.resubscribe(name, state.client);
      this.scheduleSync();
    } catch (error) {
      this.options.warn(
        `server "${name}": its lists could not be read: ${(error as Error).message}`,
      );
    }
  }

  private scheduleSync(): void {
    if (this.closed) return;
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => {
      // From a timer, a throw would end the process and every backend's service with it.
      try {
        this.sync();
      } catch (error) {
        this.options.warn(`the served lists could not be updated: ${(error as Error).message}`);
      }
    }, this.options.listDebounceMs ?? 150);
    this.syncTimer.unref();
  }

  /**
   * Makes the served registry match the backends' lists. Only entries whose definition
   * changed are replaced, all in one tick, so the server sends one `list_changed` per list
   * that changed and none when nothing did.
   */
  private sync(): void {
    if (this.closed) return;
    const { separator = '__', prefix = true } = this.options.naming ?? {};
    const allowTool = this.options.filter ?? (() => true);
    const view = this.composition;
    const toolPairs: Array<{
      server: string;
      item: string;
      tool?: Tool;
      toBackend?: (args: Record<string, unknown> | undefined) => unknown;
    }> = [];
    const promptPairs: Array<{ server: string; item: string; prompt: Prompt }> = [];
    for (const server of this.options.servers) {
      if (!view.serves(server)) continue;
      const lists = this.lists.get(server);
      for (const tool of lists?.tools ?? []) {
        if (!allowTool(server, tool.name) || !view.allowsTool(server, tool.name)) continue;
        const composition = view.tool(server, tool.name);
        if (!composition) {
          toolPairs.push({ server, item: tool.name, tool });
          continue;
        }
        const shaped = transformTool(server, tool, composition);
        if ('problems' in shaped) {
          for (const problem of shaped.problems)
            if (!this.warned.has(problem)) {
              this.warned.add(problem);
              this.options.warn(`gateway config: ${problem}; the tool is not served`);
            }
          continue;
        }
        toolPairs.push({ server, item: tool.name, tool: shaped.tool, toBackend: shaped.toBackend });
      }
      if (this.needsAuth.has(server)) toolPairs.push({ server, item: 'authenticate' });
      for (const prompt of lists?.prompts ?? [])
        promptPairs.push({ server, item: prompt.name, prompt });
    }
    const naming = {
      separator,
      prefix,
      labelOf: (server: string) => view.prefixOf(server),
    };
    const tools = composeNames(toolPairs, {
      ...naming,
      fixedName: (server, item) => view.nameOf(server, item),
    });
    const prompts = composeNames(promptPairs, { ...naming, fixedName: () => undefined });
    for (const c of [...tools.collisions, ...prompts.collisions])
      this.options.warn(
        `name "${c.name}" is offered by ${c.kept.map((k) => `"${k.server}" (${k.item})`).join(' and ')}; both kept, the later renamed`,
      );
    const byPair = <T extends { server: string; item: string }>(list: T[]) =>
      new Map(list.map((p) => [`${p.server}\u0000${p.item}`, p]));
    const toolByPair = byPair(toolPairs);
    const promptByPair = byPair(promptPairs);

    let wantTools = new Map<string, { key: string; add: () => Registration }>();
    const served = new Map<string, ServedTool>();
    const byOriginal = new Map<string, ServedTool[]>();
    for (const [name, pair] of tools.names) {
      const entry = toolByPair.get(`${pair.server}\u0000${pair.item}`)!;
      const tool = this.toolEntry(
        name,
        pair.server,
        entry.tool,
        entry.toBackend,
        view.tool(pair.server, pair.item),
      );
      wantTools.set(name, tool);
      served.set(name, tool);
      // By a backend's own name only what an App view may call (visibility has "app").
      if (
        tool.original !== undefined &&
        tool.original !== name &&
        visibleToApp(tool.definition._meta)
      )
        byOriginal.set(tool.original, [...(byOriginal.get(tool.original) ?? []), tool]);
    }
    this.served = served;
    this.byOriginal = byOriginal;
    if (this.search) {
      // Search mode lists its two tools only; the served ones are searched and called.
      this.search.update(served, new Map([...wantTools].map(([name, { key }]) => [name, key])));
      wantTools = this.searchTools();
    }
    const wantPrompts = new Map<string, { key: string; add: () => Registration }>();
    const promptOrigins = new Map<string, { server: string; original: string }>();
    for (const [name, pair] of prompts.names) {
      const { prompt } = promptByPair.get(`${pair.server}\u0000${pair.item}`)!;
      promptOrigins.set(name, { server: pair.server, original: prompt.name });
      wantPrompts.set(name, this.promptEntry(name, pair.server, prompt));
    }
    this.promptOrigins = promptOrigins;
    const { resources, templates } = this.resourceEntries();
    apply(this.registered.tools, wantTools);
    apply(this.registered.prompts, wantPrompts);
    apply(this.registered.resources, resources);
    apply(this.registered.templates, templates);
  }

  /** Search mode's two tools (the same key always: registered once, never changed). */
  private searchTools(): Map<string, { key: string; add: () => Registration }> {
    return new Map(
      (this.search?.tools() ?? []).map(({ name, definition, handler }) => [
        name,
        { key: 'search', add: () => this.server.registerTool(name, definition, handler) },
      ]),
    );
  }

  /** A served tool: its registration key, definition and handler, and how to register it. */
  private toolEntry(
    name: string,
    server: string,
    tool: Tool | undefined,
    toBackend?: (args: Record<string, unknown> | undefined) => unknown,
    composition?: unknown,
  ): ServedTool & { key: string; add: () => Registration } {
    const entry = (
      key: string,
      original: string | undefined,
      definition: ToolDefinition,
      handler: ToolHandler,
    ) => ({
      key,
      name,
      server,
      original,
      definition,
      handler,
      forModel: visibleToModel(definition._meta),
      add: () => this.server.registerTool(name, definition, handler),
    });
    if (!tool) {
      const description = `Sign in to "${server}" (it needs authorization); its tools appear once signed in.`;
      return entry(
        `auth\u0000${server}`,
        undefined,
        { description, inputSchema: { type: 'object' } },
        (_args, ctx) => this.authenticate(server, ctx),
      );
    }
    const {
      name: original,
      inputSchema,
      outputSchema,
      title,
      description,
      annotations,
      icons,
      _meta,
    } = tool as Tool & { icons?: never; _meta?: Record<string, unknown> };
    const definition = {
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      inputSchema: (inputSchema ?? { type: 'object' }) as Record<string, unknown>,
      ...(outputSchema !== undefined
        ? { outputSchema: outputSchema as Record<string, unknown> }
        : {}),
      ...(annotations !== undefined ? { annotations } : {}),
      ...(icons !== undefined ? { icons } : {}),
      ...(_meta !== undefined ? { _meta } : {}),
    };
    // Retried after a backend died under it only when the backend itself says it is harmless.
    // (Looked up only for a composed tool: the others are the backend's own, and a search
    // per tool would make a sync of many tools quadratic.)
    const own =
      composition === undefined
        ? annotations
        : this.lists.get(server)?.tools.find((t) => t.name === original)?.annotations;
    const retry = own?.readOnlyHint === true || own?.idempotentHint === true;
    return entry(
      `${server}\u0000${JSON.stringify(tool)}${composition === undefined ? '' : `\u0000${JSON.stringify(composition)}`}`,
      original,
      definition,
      (given, ctx) => {
        // Renamed arguments back to the backend's names, hidden values set (or a refusal).
        const args = (toBackend ? toBackend(given) : given) as typeof given;
        return this.forward(
          {
            kind: 'tool',
            server,
            name: original,
            method: 'tools/call',
            params: { name, arguments: given },
          },
          ctx,
          (client, options) =>
            client
              .callTool(
                // Without request _meta (the usual case) there is nothing to filter or copy.
                ctx.meta
                  ? { name: original, arguments: args, ...metaOf(ctx) }
                  : { name: original, arguments: args },
                this.taskRoutes.options(ctx, client, options),
              )
              .then((answer) => this.taskRoutes.note(server, ctx, answer)),
          retry,
        ) as never;
      },
    );
  }

  /**
   * A `tools/call` for a name not listed. In search mode, a served tool's name (an App view
   * or a client that knows it calls it directly). Then a backend's own name, as an MCP Apps
   * view calls the tools of its server (only tools whose visibility has "app"): the served
   * tool when exactly one backend offers that name; refused, naming every candidate, when
   * several do.
   */
  private resolveTool(name: string): ResolvedTool | undefined {
    const served = this.search ? this.served.get(name) : undefined;
    if (served) return served;
    const candidates = this.byOriginal.get(name);
    if (!candidates) return undefined;
    if (candidates.length === 1) return candidates[0];
    throw new RpcError(
      RpcErrorCode.InvalidParams,
      `mcpkit gateway: tool "${name}" is offered by ${candidates.length} servers (${candidates.map((c) => `"${c.server}" as "${c.name}"`).join(', ')}); a call by that name cannot choose, so it needs the served name`,
      { name, candidates: candidates.map((c) => ({ server: c.server, name: c.name })) },
    );
  }

  /**
   * A backend's `authenticate` tool. The sign-in's URL goes to the client that called it:
   * as a URL elicitation when it declared that mode, else in the tool's result (the sign-in
   * then waits in the background for the redirect). Only the stdio face's own client —
   * the user's host on this machine — without URL elicitation gets a local browser opened.
   */
  private async authenticate(server: string, ctx: HandlerContext) {
    const text = (t: string, isError = false) => ({
      content: [{ type: 'text' as const, text: t }],
      isError,
    });
    const finish = (state: ServerState) =>
      state.state === 'connected'
        ? text(`Signed in to "${server}".`)
        : text(`"${server}" is ${state.state} after the sign-in.`, true);
    const manager = this.options.manager;
    const urlMode =
      ctx.era !== 'modern' &&
      (ctx.clientCapabilities.elicitation as Record<string, unknown> | undefined)?.url !==
        undefined;
    if (urlMode) {
      const stop = new AbortController();
      const signal = AbortSignal.any([ctx.signal, stop.signal]);
      const open = async (url: string) => {
        const answer = await ctx.request('elicitation/create', {
          mode: 'url',
          message: `Sign in to "${server}"`,
          url,
          elicitationId: randomUUID(),
        });
        if (answer.action !== 'accept')
          stop.abort(
            new Error(`the sign-in to "${server}" was not accepted (${String(answer.action)})`),
          );
      };
      try {
        return finish(await manager.authenticate(server, { signal, open }));
      } catch (error) {
        return text(
          `The sign-in to "${server}" did not finish: ${(signal.reason as Error | undefined)?.message ?? (error as Error).message}`,
          true,
        );
      }
    }
    if (this.options.soleClient) return finish(await manager.authenticate(server));
    // Another machine's client, perhaps: never a browser here; the URL is the answer.
    let given!: (url: string) => void;
    const url = new Promise<string>((resolve) => {
      given = resolve;
    });
    const signedIn = manager.authenticate(server, { open: (u) => given(u) });
    signedIn.catch((error: Error) =>
      this.options.warn(`server "${server}": the sign-in did not finish: ${error.message}`),
    );
    return Promise.race([
      signedIn.then(finish),
      url.then((u) =>
        text(`To sign in to "${server}", open this URL: ${u}\nIts tools appear once signed in.`),
      ),
    ]);
  }

  private promptEntry(name: string, server: string, prompt: Prompt) {
    const { name: original, ...rest } = prompt;
    const complete = this.completers(
      server,
      { type: 'ref/prompt', name: original },
      (prompt.arguments ?? []).map((a) => a.name),
    );
    const definition = complete ? { ...rest, complete } : rest;
    return {
      key: `${server}\u0000${JSON.stringify(prompt)}`,
      add: () =>
        this.server.registerPrompt(
          name,
          definition as never,
          (args, ctx) =>
            this.forward(
              {
                kind: 'prompt',
                server,
                name: original,
                method: 'prompts/get',
                params: { name, arguments: args },
              },
              ctx,
              (client, options) => client.getPrompt(original, args, options),
            ) as never,
        ),
    };
  }

  /**
   * Resources keep the backend's URI; a URI two backends offer is served as
   * `<server>:<uri>` for each. Templates likewise. Each served URI and template has exactly
   * one backend (`assignResources`), collisions are warned about, and a read through a
   * template goes to its backend only when no other backend's template matches the URI.
   */
  private resourceEntries() {
    const assignment = assignResources(
      this.options.servers.filter((s) => this.composition.serves(s)),
      (server) => this.lists.get(server),
    );
    for (const text of assignment.warnings)
      if (!this.warnedResources.has(text)) this.options.warn(text);
    this.warnedResources = new Set(assignment.warnings);
    this.owners.set(assignment);
    const resources = new Map<string, { key: string; add: () => Registration }>();
    for (const { server, served, resource: r } of assignment.resources) {
      const { uri: original, ...definition } = r;
      resources.set(served, {
        key: `${server}\u0000${JSON.stringify(r)}`,
        add: () =>
          this.server.registerResource(
            served,
            definition as never,
            (_uri, ctx) =>
              this.forward(
                {
                  kind: 'resource',
                  server,
                  name: original,
                  method: 'resources/read',
                  params: { uri: served },
                },
                ctx,
                (client, options) => client.readResource(original, options),
              ) as never,
          ),
      });
    }
    const templates = new Map<string, { key: string; add: () => Registration }>();
    const templateOrigins = new Map<string, string>();
    for (const { server, served, strip, definition: t } of assignment.templates) {
      templateOrigins.set(served, server);
      const { uriTemplate: _, ...plain } = t;
      const complete = this.completers(
        server,
        { type: 'ref/resource', uri: t.uriTemplate },
        templateVariables(t.uriTemplate),
      );
      const definition = complete ? { ...plain, complete } : plain;
      templates.set(served, {
        key: `${server}\u0000${served}\u0000${JSON.stringify(t)}`,
        add: () =>
          this.server.registerResourceTemplate(served, definition as never, (uri, _vars, ctx) => {
            // Another backend's template may match the same URI: it is this one's only alone.
            if (this.owners.ownerOf(uri)?.server !== server)
              throw new RpcError(-32602, `Resource not found: ${uri}`, { uri });
            return this.forward(
              {
                kind: 'resource',
                server,
                name: uri.slice(strip),
                method: 'resources/read',
                params: { uri },
              },
              ctx,
              (client, options) => client.readResource(uri.slice(strip), options),
            ) as never;
          }),
      });
    }
    this.templateOrigins = templateOrigins;
    return { resources, templates };
  }

  /** The endpoint's name for the access policy (`default`: /mcp without a config's endpoint). */
  private get endpointName(): string {
    return this.composition.endpoint ?? 'default';
  }

  /**
   * A forwarded request: through the access control when there is one (policy, rate limit,
   * audit, the backend's identity headers), else straight to the call forwarder.
   */
  private forward<T>(
    target: Forwarded,
    ctx: HandlerContext,
    run: Parameters<CallForwarder['call']>[2],
    repeatable?: boolean,
  ): Promise<unknown> {
    const access = this.options.access;
    if (!access) return this.calls.call<T>(target.server, ctx, run as never, repeatable);
    return access.run({ ...target, endpoint: this.endpointName }, ctx, (headers) =>
      this.calls.call<T>(
        target.server,
        ctx,
        (headers === undefined
          ? run
          : (client: McpClient, options: InputRoundOptions) =>
              run(client, { ...options, headers })) as never,
        repeatable,
      ),
    );
  }

  /** In search mode: whether the access policy lets this caller find a served tool. */
  private searchable(name: string, ctx: HandlerContext): boolean {
    const tool = this.served.get(name);
    return (
      tool !== undefined &&
      this.options.access!.visible(ctx.authInfo, {
        endpoint: this.endpointName,
        server: tool.server,
        kind: 'tool',
        name: tool.original ?? 'authenticate',
      })
    );
  }

  /** `McpServerOptions.visible`: what the access policy lets this caller list. */
  private visibleTo(
    access: AccessControl,
    kind: VisibleKind,
    name: string,
    ctx: HandlerContext,
  ): boolean {
    const endpoint = this.endpointName;
    const auth = ctx.authInfo;
    switch (kind) {
      case 'tool': {
        const tool = this.search ? undefined : this.served.get(name);
        // Search mode's own two tools: every call through them is checked as the tool's own.
        if (!tool) return this.search !== undefined && access.health().state === 'ok';
        return access.visible(auth, {
          endpoint,
          server: tool.server,
          kind: 'tool',
          name: tool.original ?? 'authenticate',
        });
      }
      case 'prompt': {
        const origin = this.promptOrigins.get(name);
        return (
          origin !== undefined &&
          access.visible(auth, {
            endpoint,
            server: origin.server,
            kind: 'prompt',
            name: origin.original,
          })
        );
      }
      case 'resource': {
        const owner = this.owners.ownerOf(name);
        return (
          owner !== undefined &&
          access.visible(auth, {
            endpoint,
            server: owner.server,
            kind: 'resource',
            name: owner.uri,
          })
        );
      }
      case 'resourceTemplate': {
        const server = this.templateOrigins.get(name);
        return (
          server !== undefined && access.visible(auth, { endpoint, server, kind: 'resource', name })
        );
      }
    }
  }

  /** Completers that ask the backend (when it offers completions) for each argument. */
  private completers(
    server: string,
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    names: string[],
  ): Record<string, Completer> | undefined {
    const client = this.connectedClient(server);
    if (!client?.serverCapabilities?.completions || names.length === 0) return undefined;
    const { manager, callTimeoutMs } = this.options;
    const completer: (name: string) => Completer = (name) => async (value, context) => {
      try {
        const backend = await manager.client(server, { timeoutMs: callTimeoutMs });
        const result = await backend.complete(ref, { name, value }, context, {
          timeoutMs: callTimeoutMs,
        });
        return result.completion.values;
      } catch (error) {
        throw this.calls.worded(error, server);
      }
    };
    return Object.fromEntries(names.map((n) => [n, completer(n)]));
  }

  private connectedClient(server: string): McpClient | undefined {
    const state = this.options.manager.state(server);
    return state?.state === 'connected' ? state.client : undefined;
  }
}

/** Many backends behind one `McpServer` (see `Gateway`); `start()` once the manager connected. */
export function createGateway(options: GatewayOptions): Gateway {
  return new Gateway(options);
}

/**
 * The handlers to give the manager (`new McpManager({ handlers })`): the backends'
 * elicitation, sampling and roots requests go to the gateway made later.
 */
export function gatewayHandlers(
  gateway: () => Gateway | readonly Gateway[] | undefined,
): (server: string) => ManagerHandlers {
  return Gateway.handlers(gateway);
}

import type { McpClient, ServerRequestContext } from '@mcpkit/client';
import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import type { ManagerHandlers, McpManager, ServerState } from '@mcpkit/manager';
import type { Implementation, Prompt, Tool } from '@mcpkit/protocol';
import {
  type Completer,
  type InputRequest,
  McpServer,
  type Registration,
  type ResolvedTool,
  type ToolDefinition,
  type ToolHandler,
  UriTemplate,
} from '@mcpkit/server';
import {
  apply,
  type BackendLists,
  fetchLists,
  metaOf,
  templateVariables,
} from './backend-lists.js';
import { CallForwarder } from './call-forwarder.js';
import { nameAll } from './exposed-names.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { originOf } from './routing.js';
import {
  type CatalogTool,
  ToolSearch,
  type ToolSearchOptions,
  visibleToModel,
} from './search/search-tools.js';
import type { SoleClient } from './sole-client.js';

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
  /** What the gateway could not do (a list unread, a name collision). Ignored by default. */
  warn?: (text: string) => void;
  /**
   * Search mode, for clients that take only so many tools: `tools/list` gives exactly two
   * tools, `search_tools` (`{ query, limit? }`: the best matches among the served tools, each
   * with its name, description and input schema) and `call_tool` (`{ name, arguments? }`:
   * calls a served tool by its name, forwarded as a listed tool's call is). `true` for the
   * defaults. Off by default: every tool is listed.
   */
  toolSearch?: boolean | ToolSearchOptions;
}

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
  /** `server\0backend URI` → the URI served for it. */
  private servedUris = new Map<string, string>();
  /** Clients' resource subscriptions, forwarded to the owning backends. */
  private readonly subscriptions: ResourceSubscriptions;
  private syncTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private closed = false;
  /** Every tool served (in search mode too, where only the two search tools are listed). */
  private served = new Map<string, ServedTool>();
  /** Backend names → the served tools of that name (a call by a backend's own name). */
  private byOriginal = new Map<string, ServedTool[]>();
  private readonly search: ToolSearch | undefined;

  private readonly options: GatewayOptions & { warn: (text: string) => void };

  constructor(options: GatewayOptions) {
    if (options.naming?.prefix === false && options.servers.length !== 1)
      throw new TypeError(
        `naming.prefix false needs exactly one server (${options.servers.length} given)`,
      );
    this.options = { ...options, warn: options.warn ?? (() => {}) };
    this.calls = new CallForwarder(options);
    this.search = options.toolSearch
      ? new ToolSearch(
          options.toolSearch === true ? {} : options.toolSearch,
          () =>
            `tools of ${options.servers.length === 1 ? 'the server' : 'the servers'} ${options.servers.map((s) => `"${s}"`).join(', ')}`,
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
      },
      onerror: (error) => this.options.warn(`gateway: ${error.message}`),
      onsubscribe: (uri, { subscriber }) => this.subscriptions.subscribe(uri, subscriber),
      onunsubscribe: (uri, { subscriber }) => this.subscriptions.unsubscribe(uri, subscriber),
      resolveTool: (name) => this.resolveTool(name),
    });
    // A client served before the backends connected already sees the two tools of search mode.
    if (this.search) apply(this.registered.tools, this.searchTools());
    this.subscriptions = new ResourceSubscriptions({
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
        // Sent only to the sessions that subscribed to the served URI.
        if (served.has(server))
          this.server.resourceUpdated(this.servedUris.get(`${server}\u0000${uri}`) ?? uri);
      }),
    );
    this.unsubscribe.push(
      manager.on('log', ({ server, params }) => {
        // A backend's log lines go to the clients whose calls are running on it.
        for (const call of this.calls.inflight.of(server))
          void call.ctx.log(params.level, params.data, params.logger).catch(() => {});
      }),
    );
  }

  /** Handlers the manager gives each backend's client: its requests come back through here. */
  static handlers(gateway: () => Gateway | undefined): (server: string) => ManagerHandlers {
    return (server) => {
      const forward =
        (method: string, capability: 'elicitation' | 'sampling') =>
        async (params: unknown, context: ServerRequestContext) =>
          (await gateway()?.forward(server, method, capability, params, context)) as never;
      return {
        elicitation: forward('elicitation/create', 'elicitation'),
        sampling: forward('sampling/createMessage', 'sampling'),
        roots: async (context) => {
          const answer = await gateway()?.forward(
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
    return { status, servers };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.syncTimer);
    this.calls.close();
    for (const off of this.unsubscribe) off();
    await this.server.close();
  }

  private async forward(
    server: string,
    method: string,
    capability: 'elicitation' | 'sampling' | 'roots',
    params: unknown,
    context: ServerRequestContext,
  ): Promise<unknown> {
    const calls = this.calls.inflight.of(server);
    const body = (params ?? {}) as Record<string, unknown>;
    // No call to tie it to (a backend asking for roots at its start): only a face with one
    // client can still answer it.
    if (calls.length === 0 && this.options.soleClient)
      return this.options.soleClient.ask(server, method, capability, body, context.signal);
    const call = originOf(calls, server, method, capability, context.relatedRequestId);
    // 2026-07-28 clients are asked through an input_required result and their retry.
    if (call.ctx.era === 'modern') return call.ask(method as InputRequest['method'], body);
    const signal = AbortSignal.any([context.signal, call.signal]);
    return Promise.race([
      call.ctx.request(method, body),
      new Promise((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    ]);
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
    const toolPairs: Array<{ server: string; item: string; tool?: Tool }> = [];
    const promptPairs: Array<{ server: string; item: string; prompt: Prompt }> = [];
    for (const server of this.options.servers) {
      const lists = this.lists.get(server);
      for (const tool of lists?.tools ?? [])
        if (allowTool(server, tool.name)) toolPairs.push({ server, item: tool.name, tool });
      if (this.needsAuth.has(server)) toolPairs.push({ server, item: 'authenticate' });
      for (const prompt of lists?.prompts ?? [])
        promptPairs.push({ server, item: prompt.name, prompt });
    }
    const naming = { separator, prefix };
    const tools = nameAll(toolPairs, naming);
    const prompts = nameAll(promptPairs, naming);
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
      const tool = this.toolEntry(name, pair.server, entry.tool);
      wantTools.set(name, tool);
      served.set(name, tool);
      if (tool.original !== undefined && tool.original !== name)
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
    for (const [name, pair] of prompts.names) {
      const { prompt } = promptByPair.get(`${pair.server}\u0000${pair.item}`)!;
      wantPrompts.set(name, this.promptEntry(name, pair.server, prompt));
    }
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
        async () => {
          const state = await this.options.manager.authenticate(server);
          const ok = state.state === 'connected';
          return {
            content: [
              {
                type: 'text',
                text: ok
                  ? `Signed in to "${server}".`
                  : `"${server}" is ${state.state} after the sign-in.`,
              },
            ],
            isError: !ok,
          };
        },
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
    return entry(
      `${server}\u0000${JSON.stringify(tool)}`,
      original,
      definition,
      (args, ctx) =>
        this.calls.call(
          server,
          ctx,
          (client, options) =>
            client.callTool(
              // Without request _meta (the usual case) there is nothing to filter or copy.
              ctx.meta
                ? { name: original, arguments: args, ...metaOf(ctx) }
                : { name: original, arguments: args },
              options,
            ),
          // Sent again after a backend died under it only when running it twice is harmless.
          annotations?.readOnlyHint === true || annotations?.idempotentHint === true,
        ) as never,
    );
  }

  /**
   * A `tools/call` for a name not listed. In search mode, a served tool's name (an App view
   * or a client that knows it calls it directly). Then a backend's own name, as an MCP Apps
   * view calls the tools of its server: the served tool when exactly one backend offers that
   * name; refused, naming every candidate, when several do.
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
            this.calls.call(server, ctx, (client, options) =>
              client.getPrompt(original, args, options),
            ) as never,
        ),
    };
  }

  /**
   * Resources keep the backend's URI; a URI two backends offer is served as
   * `<server>:<uri>` for each. Templates likewise.
   */
  private resourceEntries() {
    const owners = new Map<string, string[]>();
    const tOwners = new Map<string, string[]>();
    for (const server of this.options.servers) {
      for (const r of this.lists.get(server)?.resources ?? [])
        owners.set(r.uri, [...(owners.get(r.uri) ?? []), server]);
      for (const t of this.lists.get(server)?.templates ?? [])
        tOwners.set(t.uriTemplate, [...(tOwners.get(t.uriTemplate) ?? []), server]);
    }
    const resources = new Map<string, { key: string; add: () => Registration }>();
    const servedUris = new Map<string, string>();
    const backendUris = new Map<string, { server: string; uri: string }>();
    const servedTemplates: Array<{ template: UriTemplate; server: string; strip: number }> = [];
    const templates = new Map<string, { key: string; add: () => Registration }>();
    for (const server of this.options.servers) {
      for (const r of this.lists.get(server)?.resources ?? []) {
        const shared = (owners.get(r.uri)?.length ?? 0) > 1;
        const uri = shared ? `${server}:${r.uri}` : r.uri;
        if (resources.has(uri)) continue;
        servedUris.set(`${server}\u0000${r.uri}`, uri);
        backendUris.set(uri, { server, uri: r.uri });
        const { uri: original, ...definition } = r;
        resources.set(uri, {
          key: `${server}\u0000${JSON.stringify(r)}`,
          add: () =>
            this.server.registerResource(
              uri,
              definition as never,
              (_uri, ctx) =>
                this.calls.call(server, ctx, (client, options) =>
                  client.readResource(original, options),
                ) as never,
            ),
        });
      }
      for (const t of this.lists.get(server)?.templates ?? []) {
        const shared = (tOwners.get(t.uriTemplate)?.length ?? 0) > 1;
        const uriTemplate = shared ? `${server}:${t.uriTemplate}` : t.uriTemplate;
        if (templates.has(uriTemplate)) continue;
        const { uriTemplate: _, ...plain } = t;
        const complete = this.completers(
          server,
          { type: 'ref/resource', uri: t.uriTemplate },
          templateVariables(t.uriTemplate),
        );
        const definition = complete ? { ...plain, complete } : plain;
        const strip = shared ? `${server}:`.length : 0;
        servedTemplates.push({ template: new UriTemplate(uriTemplate), server, strip });
        templates.set(uriTemplate, {
          key: `${server}\u0000${JSON.stringify(t)}`,
          add: () =>
            this.server.registerResourceTemplate(
              uriTemplate,
              definition as never,
              (uri, _vars, ctx) =>
                this.calls.call(server, ctx, (client, options) =>
                  client.readResource(uri.slice(strip), options),
                ) as never,
            ),
        });
      }
    }
    this.servedUris = servedUris;
    this.subscriptions.served(backendUris, servedTemplates);
    return { resources, templates };
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
  gateway: () => Gateway | undefined,
): (server: string) => ManagerHandlers {
  return Gateway.handlers(gateway);
}

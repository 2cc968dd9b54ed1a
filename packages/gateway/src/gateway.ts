import type { McpClient } from '@mcpkit/client';
import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import type { ManagerHandlers, ServerState } from '@mcpkit/manager';
import { McpServer, type ResolvedTool, TASKS_EXTENSION } from '@mcpkit/server';
import { type ServedOrigins, searchableBy, visibleTo } from './access-visibility.js';
import { runAuthenticateTool } from './authenticate-tool.js';
import { backendCompleters } from './backend-completers.js';
import { backendRequestHandlers } from './backend-requests.js';
import { CallForwarder } from './call-forwarder.js';
import { type CompositionView, everything } from './compose/view.js';
import { type Forward, forwardRequest } from './forward-request.js';
import { type GatewayHealth, gatewayHealth } from './gateway-health.js';
import type { GatewayOptions } from './gateway-options.js';
import { promptEntry } from './prompt-entry.js';
import { applyEntries, type RegisteredEntry, type RegistryEntry } from './registry-entries.js';
import { resourceEntries } from './resource-entries.js';
import { assignResources, ResourceOwners } from './resource-owners.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import { logTarget } from './routing.js';
import { ToolSearch } from './search/search-tools.js';
import type { EntryHost } from './served-entries-host.js';
import { servedNames } from './served-names.js';
import { TaskRoutes } from './task-routes.js';
import {
  type ServedTool,
  searchToolEntries,
  type ToolEntryHost,
  toolEntry,
  visibleToApp,
} from './tool-entries.js';

/**
 * Many backends behind one `McpServer`: the backends' tools, prompts and resources under
 * gateway names, calls forwarded with progress, cancellation, logging and `_meta`, and the
 * backends' own requests (elicitation, sampling, roots) forwarded to the client whose call
 * caused them. The lists follow the manager's events; a backend that reconnects keeps its
 * entries, and clients hear `list_changed` only when a served list really changed.
 */
export class Gateway {
  readonly server: McpServer;
  private readonly registered = {
    tools: new Map<string, RegisteredEntry>(),
    prompts: new Map<string, RegisteredEntry>(),
    resources: new Map<string, RegisteredEntry>(),
    templates: new Map<string, RegisteredEntry>(),
  };
  /** Runs the forwarded calls, and knows which are running on each backend. */
  private readonly calls: CallForwarder;
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

  /** What the served entries' handlers use of this gateway. */
  private readonly host: ToolEntryHost & EntryHost;

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
          options.access
            ? (name, ctx) => searchableBy(options.access!, this.origins, name, ctx)
            : undefined,
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
        ? {
            visible: (kind, name, ctx) => visibleTo(options.access!, this.origins, kind, name, ctx),
          }
        : {}),
    });
    // A reloaded access policy: list_changed to each session whose lists it changed.
    if (options.access)
      this.unsubscribe.push(options.access.watchChanges(() => this.server.visibilityChanging()));
    const forward: Forward = (target, ctx, run, repeatable) =>
      forwardRequest(this.calls, options.access, this.endpointName, target, ctx, run, repeatable);
    this.host = {
      server: this.server,
      taskRoutes: this.taskRoutes,
      forward,
      annotationsOf: (server, tool) =>
        this.options.manager.serverListsNow(server)?.tools.find((t) => t.name === tool)
          ?.annotations,
      authenticate: (server, ctx) =>
        runAuthenticateTool(options.manager, server, ctx, {
          soleClient: options.soleClient !== undefined,
          warn: this.options.warn,
        }),
      completers: (server, ref, names) =>
        backendCompleters(
          {
            manager: options.manager,
            callTimeoutMs: options.callTimeoutMs,
            worded: (error, s) => this.calls.worded(error, s),
          },
          this.connectedClient(server),
          server,
          ref,
          names,
        ),
    };
    // A client served before the backends connected already sees the two tools of search mode.
    if (this.search)
      applyEntries(this.registered.tools, searchToolEntries(this.search, this.server));
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
        // The manager has the new lists already (published before the event).
        manager.on(kind, ({ server }) => {
          if (served.has(server)) this.scheduleSync();
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
    return backendRequestHandlers((server) => {
      const found = gateway();
      const gateways = found === undefined ? [] : Array.isArray(found) ? found : [found as Gateway];
      return {
        calls: gateways.flatMap((g) => g.calls.inflight.of(server)),
        sole: gateways.find((g) => g.options.soleClient)?.options.soleClient,
        callTimeoutMs: gateways[0]?.options.callTimeoutMs ?? 0,
      };
    });
  }

  /** Waits for every served backend's lists (after `connectAll`) and serves them. */
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
  health(): GatewayHealth {
    return gatewayHealth(this.options.servers, this.options.manager, this.options.access);
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
   * A backend's state changed: a new connection gets its logging level, every list read
   * (the manager's: waited for, never fetched again) and the clients' subscriptions; then
   * the served lists follow. A pending backend keeps its last lists (the manager keeps them):
   * a restart is not a change.
   */
  private async refresh(name: string, state: ServerState): Promise<void> {
    if (state.state === 'connected') {
      const { manager } = this.options;
      // Backends log at every level; each client's own level filters what it is sent.
      if (state.client.serverCapabilities?.logging)
        await state.client.setLoggingLevel('debug').catch(() => {});
      // A list that fails is the manager's to report (a warning, the state's `degraded`).
      await manager.serverLists(name).catch(() => {});
      if (this.closed || this.connectedClient(name) !== state.client) return;
      void this.subscriptions.resubscribe(name, state.client);
    } else if (state.state === 'pending') return;
    this.scheduleSync();
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
    const view = this.composition;
    const names = servedNames({
      servers: this.options.servers,
      lists: (server) => this.options.manager.serverListsNow(server),
      needsAuth: (server) => this.options.manager.state(server)?.state === 'needs-auth',
      view,
      allowTool: this.options.filter ?? (() => true),
      naming: { separator, prefix },
      warn: this.options.warn,
      warned: this.warned,
    });
    let wantTools = new Map<string, RegistryEntry>();
    const served = new Map<string, ServedTool>();
    const byOriginal = new Map<string, ServedTool[]>();
    for (const [name, pair] of names.tools) {
      const tool = toolEntry(
        this.host,
        name,
        pair.server,
        pair.tool,
        pair.toBackend,
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
      wantTools = searchToolEntries(this.search, this.server);
    }
    const wantPrompts = new Map<string, RegistryEntry>();
    const promptOrigins = new Map<string, { server: string; original: string }>();
    for (const [name, { server, prompt }] of names.prompts) {
      promptOrigins.set(name, { server, original: prompt.name });
      wantPrompts.set(name, promptEntry(this.host, name, server, prompt));
    }
    this.promptOrigins = promptOrigins;
    const { resources, templates } = this.resourceEntries();
    applyEntries(this.registered.tools, wantTools);
    applyEntries(this.registered.prompts, wantPrompts);
    applyEntries(this.registered.resources, resources);
    applyEntries(this.registered.templates, templates);
  }

  /** The served resources and templates; collisions are warned about (each once while it lasts). */
  private resourceEntries() {
    const assignment = assignResources(
      this.options.servers.filter((s) => this.composition.serves(s)),
      (server) => this.options.manager.serverListsNow(server),
    );
    for (const text of assignment.warnings)
      if (!this.warnedResources.has(text)) this.options.warn(text);
    this.warnedResources = new Set(assignment.warnings);
    this.owners.set(assignment);
    const entries = resourceEntries(this.host, assignment, this.owners);
    this.templateOrigins = entries.templateOrigins;
    return entries;
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

  /** The endpoint's name for the access policy (`default`: /mcp without a config's endpoint). */
  private get endpointName(): string {
    return this.composition.endpoint ?? 'default';
  }

  /** The served names and their backends, as the access policy is asked about them. */
  private get origins(): ServedOrigins {
    return {
      endpoint: this.endpointName,
      served: this.served,
      searchMode: this.search !== undefined,
      promptOrigins: this.promptOrigins,
      owners: this.owners,
      templateOrigins: this.templateOrigins,
    };
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

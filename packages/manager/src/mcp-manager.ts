import type { AuthorizationHandler } from '@mcpkit/auth';
import type { McpClient } from '@mcpkit/client';
import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import { globalInstrumentation } from '@mcpkit/jsonrpc';
import type { ReadResourceResult, Tool } from '@mcpkit/protocol';
import type { UiResource } from './apps.js';
import type { ManagerAuthOptions } from './auth-wiring.js';
import {
  type CrashLoopPolicy,
  crashLoopDefaults,
  type ReconnectPolicy,
  reconnectDefaults,
} from './backoff.js';
import { ALL_KINDS, Catalog, type ListKind, type ServerListing } from './catalog.js';
import { type Clock, systemClock } from './clock.js';
import type { HostCommand } from './commands.js';
import { connectInPools } from './connect-pools.js';
import type { ServerConnection } from './connection.js';
import { ConnectionFactory } from './connection-factory.js';
import { Emitter } from './emitter.js';
import { ManagerClosedError, ServerUnavailableError, UnknownServerError } from './errors.js';
import { Sweeper } from './health.js';
import { type ResolvedHints, resolveHints } from './hints.js';
import type { HostTool, HostToolCallOptions } from './host-tool.js';
import { LazyParking } from './lazy-parking.js';
import { type ManagerLimits, resolveLimits } from './limits.js';
import { NeedsAuthCache } from './needs-auth-cache.js';
import { FileSink, type HostToolResult } from './normalize-result.js';
import type { ManagerView, McpManagerOptions } from './options.js';
import { Pool } from './pool.js';
import { diffServers, lateArrivals, type ReloadResult } from './reload.js';
import type { HostResource, HostResourceTemplate } from './resources.js';
import { ManagerScope, scopeEntries } from './scope.js';
import { ServerRouter } from './server-router.js';
import type { ConnectedState, ManagerEvents, ManagerSnapshot, ServerState } from './state.js';
import { assertEnabled } from './transport-factory.js';

/**
 * Many MCP servers at once, for a host: batched connect, an immutable state snapshot with
 * events, supervision, needs-auth, and tools, prompts and resources ready for a model.
 */
export class McpManager implements ManagerView {
  readonly limits: ManagerLimits;
  private readonly options: McpManagerOptions;
  private readonly clock: Clock;
  readonly events = new Emitter<ManagerEvents>();
  private readonly connections = new Map<string, ServerConnection>();
  private readonly router: ServerRouter;
  private readonly catalog: Catalog;
  private readonly files: FileSink;
  private readonly pools: { local: Pool; remote: Pool };
  private readonly needsAuth: NeedsAuthCache;
  private readonly hostDisabled = new Set<string>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly reconnectPolicy: ReconnectPolicy;
  private readonly crashLoopPolicy: CrashLoopPolicy;
  private readonly auth: ManagerAuthOptions;
  /** The next steps messages give, in the host's words (`hints` option). */
  readonly hints: ResolvedHints;
  private readonly factory: ConnectionFactory;
  private readonly lazy: LazyParking;
  private cachedSnapshot: ManagerSnapshot | undefined;
  private closed = false;
  private readonly sweeper: Sweeper;
  /** Stops the instrumentation's observing of this manager (`observeManager`), if any. */
  private readonly stopObserving: (() => void) | undefined;

  constructor(options: McpManagerOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    const needsAuthCacheMs = options.auth?.needsAuthCacheMs;
    const given = {
      ...options.limits,
      ...(needsAuthCacheMs !== undefined && { needsAuthCacheMs }),
    };
    this.limits = resolveLimits(given, options.env ?? process.env);
    this.reconnectPolicy = { ...reconnectDefaults, ...options.reconnect };
    this.crashLoopPolicy = { ...crashLoopDefaults, ...options.crashLoop };
    this.auth = { ...options.auth };
    this.pools = {
      local: new Pool(this.limits.localConcurrency),
      remote: new Pool(this.limits.remoteConcurrency),
    };
    this.files = new FileSink(options.tempDir);
    this.hints = resolveHints(options.hints);
    this.needsAuth = new NeedsAuthCache(this.clock, this.limits.needsAuthCacheMs);
    this.catalog = new Catalog({
      limits: this.limits,
      clock: this.clock,
      events: this.events,
      callTool: (server, tool, args, o) => this.callTool(server, tool, args, o),
      getPrompt: (server, prompt) => (args, o) => this.router.getPrompt(server, prompt, args, o),
      onTools: (server, tools) => this.lazy.remember(server, tools),
      onHealth: (server, client) => this.listHealth(server, client),
      prefetch: checkLists(options.lists),
    });
    // What most parts share; each takes the fields it declares.
    const { clock, limits, events, hints, catalog } = this;
    const core = {
      clock,
      limits,
      events,
      hints,
      catalog,
      track: (t: Promise<unknown>) => this.track(t),
    };
    const current = (name: string) => this.connections.get(name);
    const reconnect = this.reconnectPolicy;
    this.lazy = new LazyParking({ ...core, options: options.lazyStart, connection: current });
    this.sweeper = new Sweeper({
      ...core,
      reconnect,
      connections: () => this.connections.values(),
    });
    this.factory = new ConnectionFactory({
      ...core,
      options,
      reconnect,
      crashLoop: this.crashLoopPolicy,
      auth: this.auth,
      pools: this.pools,
      hostDisabled: this.hostDisabled,
      current,
      publish: (c, state, reason) => this.publish(c, state, reason),
    });
    this.router = new ServerRouter({
      ...core,
      files: this.files,
      connections: this.connections,
      connection: (name) => this.connection(name),
      handlersFor: (name) => this.factory.handlersFor(name),
      authenticate: (name) => this.authenticate(name),
    });
    const hooks =
      options.instrumentation === false
        ? undefined
        : (options.instrumentation ?? globalInstrumentation());
    this.stopObserving = hooks?.observeManager?.(this, (name) =>
      networkTransportOf(this.connections.get(name)?.server.config.type),
    );
  }

  // ---- events and state -----------------------------------------------------------------

  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends keyof ManagerEvents>(
    type: K,
    listener: (event: ManagerEvents[K]) => void,
  ): () => void {
    return this.events.on(type, listener);
  }

  snapshot(): ManagerSnapshot {
    this.cachedSnapshot ??= Object.freeze({
      servers: Object.freeze([...this.connections.values()].map((c) => c.state)),
    });
    return this.cachedSnapshot;
  }

  /** One server's state, or undefined when it is not managed. */
  state(name: string): ServerState | undefined {
    return this.connections.get(name)?.state;
  }

  private publish(connection: ServerConnection, state: ServerState, reason: string): void {
    if (this.connections.get(connection.name) !== connection) return;
    const previous = this.cachedSnapshot?.servers.find((s) => s.name === connection.name);
    this.cachedSnapshot = undefined;
    if (state.state === 'needs-auth') this.needsAuth.remember(state);
    // A (re)connect or a renewed session may bring other lists: the old ones are dropped and
    // the fetch is under way before anyone hears "connected", so a read made on that event
    // waits for the fresh lists, as at the first connect.
    if (state.state === 'connected')
      this.track(this.catalog.refresh(state.name, state.client, undefined, { renew: true }));
    this.events.emit('statechange', { name: state.name, state, previous, reason });
    if (state.state !== 'connected' && state.state !== 'pending') this.catalog.forget(state.name);
  }

  /**
   * A list of a connected server failed, came back, or had tools repaired or left out: its
   * state says so (connected, degraded while a list is missing) and `statechange` fires.
   */
  private listHealth(server: string, client: McpClient): void {
    const connection = this.connections.get(server);
    const current = connection?.state;
    if (!connection || current?.state !== 'connected' || current.client !== client) return;
    const degraded = this.catalog.degraded(server);
    const toolIssues = this.catalog.issues(server);
    const { degraded: _d, toolIssues: _t, ...base } = current;
    const next: ConnectedState = Object.freeze({
      ...base,
      ...(degraded.length > 0 ? { degraded: Object.freeze(degraded) } : {}),
      ...(toolIssues.length > 0 ? { toolIssues } : {}),
    });
    connection.state = next;
    const previous = this.cachedSnapshot?.servers.find((s) => s.name === server) ?? current;
    this.cachedSnapshot = undefined;
    const reason =
      degraded.length > 0
        ? `listing ${degraded.map((f) => f.list).join(', ')} failed`
        : current.degraded
          ? 'its lists came back'
          : 'its tool list changed';
    this.events.emit('statechange', { name: server, state: next, previous, reason });
  }

  private track(task: Promise<unknown>): void {
    const p = task.catch(() => {}).finally(() => this.background.delete(p));
    this.background.add(p);
  }

  // ---- connecting -----------------------------------------------------------------------

  private add(servers: readonly ResolvedServer[]): ServerConnection[] {
    const added: ServerConnection[] = [];
    for (const server of servers) {
      if (this.connections.has(server.name)) continue;
      const connection = this.factory.create(server);
      this.connections.set(server.name, connection);
      this.cachedSnapshot = undefined;
      this.events.emit('statechange', {
        name: server.name,
        state: connection.state,
        previous: undefined,
        reason: 'added',
      });
      added.push(connection);
    }
    return added;
  }

  /** Connects the given connections in their pools; resolves when each has settled. */
  private start(connections: readonly ServerConnection[], signal?: AbortSignal): Promise<void> {
    return connectInPools(connections, { needsAuth: this.needsAuth, lazy: this.lazy }, signal);
  }

  private async serversFromOptions(): Promise<readonly ResolvedServer[]> {
    const s = this.options.servers;
    if (!s) return [];
    return typeof s === 'function' ? s() : s;
  }

  /**
   * Connects every enabled server: local ones 3 at a time, remote ones 20 at a time, both
   * pools at once. Each server's state (and its lists) is published as it settles. A late
   * source is added when it arrives, without delaying the first.
   */
  async connectAll(
    options: { signal?: AbortSignal; late?: Promise<readonly ResolvedServer[]> } = {},
  ): Promise<ManagerSnapshot> {
    this.assertOpen();
    const added = this.add(await this.serversFromOptions());
    // Not tracked with the list fetches: connectAll must not wait for the late source.
    if (options.late) {
      void options.late
        .then((more) => this.addLate(more))
        .catch((error: Error) =>
          this.events.emit('warning', {
            server: '',
            error: new Error(`the late server source failed: ${error.message}`, { cause: error }),
          }),
        );
    }
    await this.start(added, options.signal);
    await this.settled();
    this.sweeper.start();
    return this.snapshot();
  }

  /** Late servers (connectors): those whose signature a present server has are dropped. */
  private async addLate(more: readonly ResolvedServer[]): Promise<void> {
    if (this.closed) return;
    const present = [...this.connections.values()].map((c) => c.server);
    await this.start(this.add(lateArrivals(present, more)));
  }

  /** Waits for list fetches that are under way (after connects). */
  private async settled(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  // ---- calls ------------------------------------------------------------------------------

  private connection(name: string): ServerConnection {
    this.assertOpen();
    const c = this.connections.get(name);
    if (!c) throw new UnknownServerError(name, [...this.connections.keys()]);
    return c;
  }

  /**
   * The connected client of a server, for callers that need the raw protocol (a gateway).
   * A `pending` server gets one immediate attempt, awaited up to `timeoutMs`; with
   * `waitForReconnect`, when that attempt fails and the server stays `pending`, the wait goes
   * on through the manager's own reconnects, up to the same `timeoutMs`. A server that is
   * failed, needs a sign-in or is disabled rejects with `ServerUnavailableError`.
   */
  client(
    name: string,
    options?: { signal?: AbortSignal; timeoutMs?: number; waitForReconnect?: boolean },
  ): Promise<McpClient> {
    return this.connection(name).ready(options);
  }

  /**
   * The connected client of a server when it is up right now, without a promise (a
   * gateway's hot path); undefined otherwise, when `client()` waits for it or says why not.
   * Marks the server used, as `client()` does.
   */
  clientNow(name: string): McpClient | undefined {
    return this.connection(name).readyNow();
  }

  /**
   * A request made on a client from `client()` or `clientNow()` failed (a gateway's own
   * forwarding): supervision counts it as it counts the manager's own calls — three terminal
   * network errors in a row are a drop, a remote server that refuses the connection is one
   * at once — so the server goes `pending` and is reconnected.
   */
  noteCallError(name: string, error: unknown): void {
    this.connections.get(name)?.noteCallError(error);
  }

  /** Calls a tool on a server and normalizes the result for a host. */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    return this.router.callTool(server, tool, args, options);
  }

  /**
   * Gets the result of a task a tool call became (tasks extension, option `tasks`) by the id
   * `ontask` gave: works from a new manager after the first one closed or the host restarted.
   */
  resumeTask(
    server: string,
    taskId: string,
    options?: Pick<HostToolCallOptions, 'signal' | 'onprogress'>,
  ): Promise<HostToolResult> {
    return this.router.resumeTask(server, taskId, options);
  }

  /**
   * MCP Apps: a tool call from a view of `server` (the host proxies the view's `tools/call`).
   * Only `server`'s own tools whose `_meta.ui.visibility` has "app" (the default) are
   * called; anything else rejects with `AppToolRefusedError` and reaches no server.
   */
  callToolFromApp(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    this.assertOpen();
    return this.router.callToolFromApp(server, tool, args, options);
  }

  /**
   * MCP Apps: a server's `ui://` view, its HTML and the CSP, permissions, domain and border
   * it declares (`uiContentSecurityPolicy` makes the header). Cached per connection until
   * the server says the resource was updated or reconnects; `fresh` reads it again.
   * Rejects with `UiResourceError` for a URI that is not `ui://` or content that is not HTML.
   */
  readUiResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number; fresh?: boolean },
  ): Promise<UiResource> {
    this.assertOpen();
    return this.router.readUiResource(server, uri, options);
  }

  /**
   * Every tool of every connected server (and warm-cached lazy ones), named for a host: the
   * model's list, so MCP Apps tools whose visibility leaves out "model" are not in it.
   */
  tools(options?: { signal?: AbortSignal }): Promise<HostTool[]> {
    this.assertOpen();
    return this.router.tools(options);
  }

  /**
   * The server and tool behind a host name: of every tool list the manager has published
   * (each connect and `list_changed` fills the names in; `tools()` is not needed first).
   */
  resolveToolName(hostName: string): { server: string; tool: string } | undefined {
    return this.router.resolveToolName(hostName);
  }

  /** Calls a tool by its host name (the `authenticate` pseudo-tool included). */
  callHostTool(
    hostName: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    return this.router.callHostTool(hostName, args, options);
  }

  /** Every prompt of every connected server as a host command. */
  commands(options?: { signal?: AbortSignal }): Promise<HostCommand[]> {
    this.assertOpen();
    return this.router.commands(options);
  }

  /** Resources of one server or of all connected ones, each naming its server. */
  listResources(server?: string, options?: { signal?: AbortSignal }): Promise<HostResource[]> {
    return this.router.listResources(server, options);
  }

  /**
   * A connected server's tools exactly as it listed them (title, icons, annotations,
   * `_meta`, whole descriptions), in its own order: the manager's list, not a new request
   * when it has one. Empty when the server is not connected; rejects with the server's
   * error when its `tools/list` failed. `tools()` gives the same tools named and shaped for
   * a host, sorted by host name.
   */
  serverTools(server: string, options?: { signal?: AbortSignal }): Promise<Tool[]> {
    this.assertOpen();
    return this.router.serverTools(server, options);
  }

  /**
   * One server's tools, prompts, resources and resource templates exactly as it listed them,
   * in its order: the manager's lists (fetched at each connect and after `list_changed`), not
   * new requests when it has them. For a connected server, lists not read yet are fetched
   * and followed from then on. A list that failed is empty; the server's state says so
   * (`degraded`). Undefined for a server with no lists (not connected, failed, …); a pending
   * (reconnecting) server keeps its last. Changes come as `toolschange`, `promptschange` and
   * `resourceschange` (templates included).
   */
  serverLists(
    server: string,
    options?: { signal?: AbortSignal },
  ): Promise<ServerListing | undefined> {
    this.assertOpen();
    return this.router.serverLists(server, options);
  }

  /** `serverLists()` as published now, without a promise or a fetch (a gateway's sync). */
  serverListsNow(server: string): ServerListing | undefined {
    return this.catalog.listing(server);
  }

  listResourceTemplates(
    server?: string,
    options?: { signal?: AbortSignal },
  ): Promise<HostResourceTemplate[]> {
    return this.router.listResourceTemplates(server, options);
  }

  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ReadResourceResult> {
    return this.router.readResource(server, uri, options);
  }

  // ---- auth -------------------------------------------------------------------------------

  /**
   * Runs the interactive sign-in for a server (needs `auth.interactive`), then reconnects
   * it. Resolves with its new state. `open`: how the user is given the authorization URL,
   * instead of the handler's own way (a local browser by default).
   */
  async authenticate(
    name: string,
    options: { signal?: AbortSignal; open?: (url: string) => void | Promise<void> } = {},
  ): Promise<ServerState> {
    options.signal?.throwIfAborted();
    const connection = this.connection(name);
    const interactive = this.auth.interactive;
    if (!interactive) {
      throw new ServerUnavailableError(
        name,
        'needs-auth',
        `interactive sign-in is off in this host (auth.interactive); ${this.hints.signInElsewhere(name)} and ${this.hints.reconnect(name)}`,
        {
          failure: { kind: 'needs-sign-in', interactive: false },
          nextStep: { kind: 'sign-in', interactive: false },
        },
      );
    }
    await this.factory.ensureStore();
    const { oauthProviderFor } = await import('./auth-wiring.js');
    const base = interactive as AuthorizationHandler;
    const open = options.open;
    const handler: AuthorizationHandler = open
      ? {
          redirectUri: () => base.redirectUri(),
          authorize: (url, o) => base.authorize(url, { ...o, open }),
          close: () => base.close?.(),
        }
      : base;
    await (await oauthProviderFor(connection.server, this.auth, handler)).login(
      options.signal ? { signal: options.signal } : {},
    );
    this.needsAuth.forget(name);
    await connection.reconnect('signed in');
    await this.settled();
    return connection.state;
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Drops and reconnects a server now (also lifts a crash-loop hold or a needs-auth cache). */
  async reconnect(name: string): Promise<ServerState> {
    const connection = this.connection(name);
    if (this.hostDisabled.has(name) && connection.state.state === 'disabled')
      throw new ServerUnavailableError(name, 'disabled', connection.state.reason, {
        ...(connection.state.failure ? { failure: connection.state.failure } : {}),
        ...(connection.state.nextStep ? { nextStep: connection.state.nextStep } : {}),
      });
    assertEnabled(connection.server);
    this.needsAuth.forget(name);
    await connection.reconnect('reconnect requested');
    await this.settled();
    return connection.state;
  }

  /** Ends a server's connection (and process tree) until `reconnect()` or `enable()`. */
  async disconnect(name: string): Promise<void> {
    const connection = this.connection(name);
    await connection.stop(
      {
        name,
        state: 'disabled',
        reason: `server "${name}" was disconnected by the host; ${this.hints.reconnect(name)}`,
        failure: { kind: 'disabled', by: 'host' },
        nextStep: { kind: 'reconnect' },
      },
      'disconnected',
    );
  }

  async disable(name: string): Promise<void> {
    const connection = this.connection(name);
    this.hostDisabled.add(name);
    await connection.stop(
      {
        name,
        state: 'disabled',
        reason: `server "${name}" was disabled by the host; ${this.hints.hostEnable(name)}`,
        failure: { kind: 'disabled', by: 'host' },
        nextStep: { kind: 'enable', by: 'host' },
      },
      'disabled',
    );
  }

  /** Lifts `disable()`; the config must enable the server too (the gate runs again). */
  async enable(name: string): Promise<ServerState> {
    const connection = this.connection(name);
    this.hostDisabled.delete(name);
    assertEnabled(connection.server);
    await connection.connect('enabled');
    await this.settled();
    return connection.state;
  }

  /**
   * Applies a new resolved configuration: unchanged servers keep their connection, changed
   * ones reconnect, removed ones close, added ones connect.
   */
  async reload(next: readonly ResolvedServer[]): Promise<ReloadResult> {
    this.assertOpen();
    const current = new Map([...this.connections.values()].map((c) => [c.name, c.server]));
    const diff = diffServers(current, next);
    const byName = new Map(next.map((s) => [s.name, s]));
    await Promise.all([
      ...diff.removed.map((name) => this.retire(name, true)),
      ...diff.changed.map((name) => this.retire(name, false)),
    ]);
    const added = this.add([...diff.changed, ...diff.added].map((n) => byName.get(n)!));
    await this.start(added);
    await this.settled();
    return diff;
  }

  /** Closes a server's connection and drops it (reload: removed, or about to be re-added). */
  private async retire(name: string, removed: boolean): Promise<void> {
    const c = this.connections.get(name)!;
    this.connections.delete(name);
    this.cachedSnapshot = undefined;
    await c.close();
    this.catalog.forget(name);
    if (!removed) return;
    const state = { name, state: 'disabled', reason: 'removed from the configuration' } as const;
    this.events.emit('statechange', { name, state, previous: c.state, reason: 'removed' });
  }

  /**
   * A child view over some of this manager's servers (by name, sharing their connections)
   * plus inline ones it owns and closes with itself — for an agent with its own servers.
   */
  scope(options: {
    servers: Array<string | { name: string; config: ServerConfig }>;
  }): ManagerScope {
    const { shared, inline } = scopeEntries(options.servers, [...this.connections.keys()]);
    return new ManagerScope(this, shared, new McpManager({ ...this.options, servers: inline }));
  }

  private assertOpen(): void {
    if (this.closed) throw new ManagerClosedError();
  }

  /** Ends every connection and process tree, removes written files; idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sweeper.stop();
    this.stopObserving?.();
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    await Promise.all([...this.background]);
    this.catalog.clear();
    await this.files.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** `network.transport` of a server's config type: `pipe` for stdio, `tcp` for the rest. */
function networkTransportOf(type: string | undefined): string | undefined {
  if (type === undefined || type === 'stdio') return 'pipe';
  return type === 'sdk' ? undefined : 'tcp';
}

/** The `lists` option: the list kinds to prefetch, checked (a typo fails at construction). */
function checkLists(lists: McpManagerOptions['lists']): readonly ListKind[] | undefined {
  if (lists === undefined) return undefined;
  if (!Array.isArray(lists))
    throw new TypeError('McpManager: "lists" must be an array of "tools", "prompts", "resources"');
  for (const kind of lists)
    if (!ALL_KINDS.includes(kind))
      throw new TypeError(
        `McpManager: "lists" has ${JSON.stringify(kind)}; the kinds are "tools", "prompts", "resources"`,
      );
  return Object.freeze([...new Set(lists)]);
}

import { homedir } from 'node:os';
import type { AuthorizationHandler } from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import { type ResolvedServer, type ServerConfig, serverSignature } from '@mcpkit/config';
import type { ReadResourceResult, Tool } from '@mcpkit/protocol';
import pMap from 'p-map';
import type { ManagerAuthOptions } from './auth-wiring.js';
import {
  type CrashLoopPolicy,
  crashLoopDefaults,
  type ReconnectPolicy,
  reconnectDefaults,
} from './backoff.js';
import { Catalog } from './catalog.js';
import { initialState } from './classify.js';
import { type Clock, systemClock } from './clock.js';
import type { HostCommand } from './commands.js';
import { ServerConnection } from './connection.js';
import { Emitter } from './emitter.js';
import { ManagerClosedError, ServerUnavailableError, UnknownServerError } from './errors.js';
import { idleState, scheduleSweep } from './health.js';
import { HostSurface } from './host-surface.js';
import type { HostTool, HostToolCallOptions } from './host-tool.js';
import { readToolCache, writeToolCache } from './lazy-start.js';
import { type ManagerLimits, resolveLimits } from './limits.js';
import { FileSink, type HostToolResult } from './normalize-result.js';
import type { ManagerHandlers, ManagerView, McpManagerOptions } from './options.js';
import { Pool } from './pool.js';
import { RateLimit } from './rate-limit.js';
import { diffServers, type ReloadResult } from './reload.js';
import type { HostResource, HostResourceTemplate } from './resources.js';
import { ManagerScope, scopeEntries } from './scope.js';
import type { ManagerEvents, ManagerSnapshot, NeedsAuthState, ServerState } from './state.js';
import {
  assertEnabled,
  createTransport,
  isLocal,
  type TransportContext,
} from './transport-factory.js';

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
  private readonly surface: HostSurface;
  private readonly catalog: Catalog;
  private readonly files: FileSink;
  private readonly pools: { local: Pool; remote: Pool };
  private readonly needsAuth = new Map<string, { until: number; state: NeedsAuthState }>();
  private readonly hostDisabled = new Set<string>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly reconnectPolicy: ReconnectPolicy;
  private readonly crashLoopPolicy: CrashLoopPolicy;
  private readonly auth: ManagerAuthOptions;
  private cachedSnapshot: ManagerSnapshot | undefined;
  private closed = false;
  private sweepTimer: unknown;
  private readonly warnings: RateLimit;

  constructor(options: McpManagerOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.limits = resolveLimits(
      {
        ...options.limits,
        ...(options.auth?.needsAuthCacheMs !== undefined
          ? { needsAuthCacheMs: options.auth.needsAuthCacheMs }
          : {}),
      },
      options.env ?? process.env,
    );
    this.reconnectPolicy = { ...reconnectDefaults, ...options.reconnect };
    this.crashLoopPolicy = { ...crashLoopDefaults, ...options.crashLoop };
    this.auth = { ...options.auth };
    this.pools = {
      local: new Pool(this.limits.localConcurrency),
      remote: new Pool(this.limits.remoteConcurrency),
    };
    this.files = new FileSink(options.tempDir);
    this.warnings = new RateLimit(this.clock);
    this.catalog = new Catalog({
      limits: this.limits,
      clock: this.clock,
      events: this.events,
      callTool: (server, tool, args, o) => this.callTool(server, tool, args, o),
      getPrompt: (server, prompt) => (args, o) => this.surface.getPrompt(server, prompt, args, o),
      onTools: (server, tools) => this.rememberTools(server, tools),
    });
    this.surface = new HostSurface({
      limits: this.limits,
      catalog: this.catalog,
      events: this.events,
      files: this.files,
      connections: this.connections,
      connection: (name) => this.connection(name),
      handlersFor: (name) => this.handlersFor(name),
      authenticate: (name) => this.authenticate(name),
    });
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
    if (state.state === 'needs-auth')
      this.needsAuth.set(state.name, {
        until: this.clock.now() + this.limits.needsAuthCacheMs,
        state,
      });
    this.events.emit('statechange', { name: state.name, state, previous, reason });
    if (state.state === 'connected') {
      this.track(this.catalog.refresh(state.name, state.client));
    } else if (state.state !== 'pending') {
      this.catalog.forget(state.name);
    }
  }

  private track(task: Promise<unknown>): void {
    const p = task.catch(() => {}).finally(() => this.background.delete(p));
    this.background.add(p);
  }

  // ---- connecting -----------------------------------------------------------------------

  private transportContext(name: string): TransportContext {
    return {
      env: this.options.env ?? process.env,
      cwd: this.options.cwd ?? process.cwd(),
      home: this.options.home ?? homedir(),
      auth: this.auth,
      inProcess: this.options.inProcess ?? {},
      httpFallback: this.options.httpFallback ?? true,
      onstderr: (text) => this.events.emit('stderr', { server: name, text }),
      onwarning: (error) => this.warn(name, error),
      onstreamlost: (reason) => this.connections.get(name)?.noteStreamLost(reason),
    };
  }

  /** Transport warnings, at most 20 a minute per server (then one note that more were dropped). */
  private warn(server: string, error: Error): void {
    const verdict = this.warnings.allow(server);
    if (verdict === 'pass') this.events.emit('warning', { server, error });
    else if (verdict === 'first-dropped')
      this.events.emit('warning', {
        server,
        error: new Error(
          `server "${server}": more warnings than 20 a minute; further ones are dropped until the minute is over (the last: ${error.message})`,
        ),
      });
  }

  private handlersFor(name: string): ManagerHandlers | undefined {
    const h = this.options.handlers;
    return typeof h === 'function' ? h(name) : h;
  }

  private makeClient(server: ResolvedServer): McpClient {
    const { urlElicitation, ...handlers } = this.handlersFor(server.name) ?? {};
    const client: McpClient = new McpClient({
      name: server.name,
      clientInfo: this.options.clientInfo ?? { name: 'mcpkit-manager', version: '0.1.0' },
      handlers,
      // A host that handles -32042 can complete URL-mode elicitations: say so.
      ...(urlElicitation ? { capabilities: { elicitation: { url: {} } } } : {}),
      ...(server.config.timeout ? { requestTimeoutMs: server.config.timeout } : {}),
      onlog: (params) => this.events.emit('log', { server: server.name, params }),
      onlistchanged: (list) =>
        this.catalog.changed(server.name, list, () => this.connections.get(server.name)?.client),
    });
    return client;
  }

  private async ensureStore(): Promise<void> {
    if (this.auth.store) return;
    const { MemoryTokenStore } = await import('@mcpkit/auth');
    // One store for the manager's life, so a sign-in is seen by the next connect.
    this.auth.store ??= new MemoryTokenStore();
  }

  private newConnection(server: ResolvedServer): ServerConnection {
    const initial = initialState(server, this.hostDisabled.has(server.name), this.reconnectPolicy);
    const connection = new ServerConnection(
      server,
      {
        clock: this.clock,
        limits: this.limits,
        reconnect: this.reconnectPolicy,
        crashLoop: this.crashLoopPolicy,
        makeTransport: async (s) => {
          assertEnabled(s);
          if (!isLocal(s)) await this.ensureStore();
          const factory = this.options.transportFactory ?? createTransport;
          return factory(s, this.transportContext(s.name));
        },
        makeClient: (s) => this.makeClient(s),
        inPool: (s, task) => (isLocal(s) ? this.pools.local : this.pools.remote).run(task),
        publish: (c, state, reason) => this.publish(c, state, reason),
      },
      initial,
    );
    return connection;
  }

  /** A recent needs-auth verdict (the server is not tried again until it runs out). */
  private cachedNeedsAuth(connection: ServerConnection): NeedsAuthState | undefined {
    const cached = this.needsAuth.get(connection.name);
    return cached && cached.until > this.clock.now() ? cached.state : undefined;
  }

  private add(servers: readonly ResolvedServer[]): ServerConnection[] {
    const added: ServerConnection[] = [];
    for (const server of servers) {
      if (this.connections.has(server.name)) continue;
      const connection = this.newConnection(server);
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
  private async start(
    connections: readonly ServerConnection[],
    signal?: AbortSignal,
  ): Promise<void> {
    const pending: ServerConnection[] = [];
    for (const c of connections) {
      if (c.state.state !== 'pending') continue;
      // A recent needs-auth verdict: shown again without asking the server.
      const cached = this.cachedNeedsAuth(c);
      if (cached) await c.stop(cached, 'needs-auth (cached verdict)');
      else pending.push(c);
    }
    const startable = this.options.lazyStart ? await this.parkWarm(pending) : pending;
    const run = (c: ServerConnection) => c.connect('connect').catch(() => {});
    const local = startable.filter((c) => isLocal(c.server));
    const remote = startable.filter((c) => !isLocal(c.server));
    await Promise.all([
      pMap(local, run, {
        concurrency: Math.max(1, this.limits.localConcurrency),
        ...(signal ? { signal } : {}),
      }),
      pMap(remote, run, {
        concurrency: Math.max(1, this.limits.remoteConcurrency),
        ...(signal ? { signal } : {}),
      }),
    ]);
  }

  /** Lazy start: servers with a cached tool list are listed by it and not started. */
  private async parkWarm(connections: ServerConnection[]): Promise<ServerConnection[]> {
    const lazy = this.options.lazyStart;
    if (!lazy) return connections;
    const cold: ServerConnection[] = [];
    await Promise.all(
      connections.map(async (c) => {
        const tools = await readToolCache(lazy, c.server);
        if (!tools) return cold.push(c);
        this.catalog.setWarm(c.name, tools);
        c.park('lazy start: starts on its first call');
      }),
    );
    return cold;
  }

  private rememberTools(server: string, tools: Tool[]): void {
    const lazy = this.options.lazyStart;
    const c = this.connections.get(server);
    if (!lazy || !c) return;
    this.track(
      writeToolCache(lazy, c.server, tools).catch((error: Error) =>
        this.events.emit('warning', {
          server,
          error: new Error(
            `server "${server}": could not keep its tool list in ${lazy.cacheDir}: ${error.message}`,
            { cause: error },
          ),
        }),
      ),
    );
  }

  /** Idle stop and health pings, on one timer. */
  private sweep(): void {
    if (this.sweepTimer !== undefined || this.closed) return;
    this.sweepTimer = scheduleSweep({
      clock: this.clock,
      limits: this.limits,
      connections: () => this.connections.values(),
      idleStop: (c) => {
        // Listed by its last tools while stopped, so a host's tool list does not flicker.
        const tools = this.catalog.lists.get(c.name)?.tools;
        if (tools) this.catalog.setWarm(c.name, tools);
        this.track(c.stop(idleState(c.name, this.limits, this.reconnectPolicy), 'idle'));
      },
      track: (task) => this.track(task),
      again: () => {
        this.sweepTimer = undefined;
        this.sweep();
      },
    });
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
    this.sweep();
    return this.snapshot();
  }

  /** Late servers (connectors): those whose signature a present server has are dropped. */
  private async addLate(more: readonly ResolvedServer[]): Promise<void> {
    if (this.closed) return;
    const present = new Set(
      [...this.connections.values()].map((c) => serverSignature(c.server.config)).filter(Boolean),
    );
    const fresh = more.filter((s) => {
      if (this.connections.has(s.name)) return false;
      const sig = serverSignature(s.config);
      return sig === undefined || !present.has(sig);
    });
    await this.start(this.add(fresh));
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

  /** Calls a tool on a server and normalizes the result for a host. */
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    return this.surface.callTool(server, tool, args, options);
  }

  /** Every tool of every connected server (and warm-cached lazy ones), named for a host. */
  tools(options?: { signal?: AbortSignal }): Promise<HostTool[]> {
    this.assertOpen();
    return this.surface.tools(options);
  }

  /** The server and tool behind a host name from the last `tools()`. */
  resolveToolName(hostName: string): { server: string; tool: string } | undefined {
    return this.surface.resolveToolName(hostName);
  }

  /** Calls a tool by its host name (the `authenticate` pseudo-tool included). */
  callHostTool(
    hostName: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    return this.surface.callHostTool(hostName, args, options);
  }

  /** Every prompt of every connected server as a host command. */
  commands(options?: { signal?: AbortSignal }): Promise<HostCommand[]> {
    this.assertOpen();
    return this.surface.commands(options);
  }

  /** Resources of one server or of all connected ones, each naming its server. */
  listResources(server?: string, options?: { signal?: AbortSignal }): Promise<HostResource[]> {
    return this.surface.listResources(server, options);
  }

  listResourceTemplates(
    server?: string,
    options?: { signal?: AbortSignal },
  ): Promise<HostResourceTemplate[]> {
    return this.surface.listResourceTemplates(server, options);
  }

  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ReadResourceResult> {
    return this.surface.readResource(server, uri, options);
  }

  // ---- auth -------------------------------------------------------------------------------

  /**
   * Runs the interactive sign-in for a server (needs `auth.interactive`), then reconnects
   * it. Resolves with its new state.
   */
  async authenticate(name: string, options: { signal?: AbortSignal } = {}): Promise<ServerState> {
    options.signal?.throwIfAborted();
    const connection = this.connection(name);
    const interactive = this.auth.interactive;
    if (!interactive) {
      throw new ServerUnavailableError(
        name,
        'needs-auth',
        'interactive sign-in is off in this host (auth.interactive); sign in another way (e.g. "mcpkit login") and call reconnect()',
      );
    }
    await this.ensureStore();
    const { oauthProviderFor } = await import('./auth-wiring.js');
    const provider = await oauthProviderFor(
      connection.server,
      this.auth,
      interactive as AuthorizationHandler,
    );
    await provider.login();
    this.needsAuth.delete(name);
    await connection.reconnect('signed in');
    await this.settled();
    return connection.state;
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Drops and reconnects a server now (also lifts a crash-loop hold or a needs-auth cache). */
  async reconnect(name: string): Promise<ServerState> {
    const connection = this.connection(name);
    if (this.hostDisabled.has(name) && connection.state.state === 'disabled')
      throw new ServerUnavailableError(name, 'disabled', connection.state.reason);
    assertEnabled(connection.server);
    this.needsAuth.delete(name);
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
        reason: `server "${name}" was disconnected by the host; call reconnect("${name}") or enable("${name}")`,
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
        reason: `server "${name}" was disabled by the host; call enable("${name}")`,
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
    await Promise.all(
      [...diff.removed, ...diff.changed].map(async (name) => {
        const c = this.connections.get(name)!;
        this.connections.delete(name);
        this.cachedSnapshot = undefined;
        await c.close();
        this.catalog.forget(name);
        if (diff.removed.includes(name))
          this.events.emit('statechange', {
            name,
            state: { name, state: 'disabled', reason: 'removed from the configuration' },
            previous: c.state,
            reason: 'removed',
          });
      }),
    );
    const added = this.add([...diff.changed, ...diff.added].map((n) => byName.get(n)!));
    await this.start(added);
    await this.settled();
    return diff;
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
    if (this.sweepTimer !== undefined) this.clock.clearTimeout(this.sweepTimer);
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    await Promise.all([...this.background]);
    this.catalog.clear();
    await this.files.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

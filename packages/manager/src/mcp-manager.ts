import { homedir } from 'node:os';
import type { AuthorizationHandler } from '@mcpkit/auth';
import { type ClientHandlers, McpClient, type UrlElicitation } from '@mcpkit/client';
import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import type { Transport } from '@mcpkit/jsonrpc';
import type { GetPromptResult, Implementation, ReadResourceResult } from '@mcpkit/protocol';
import pMap from 'p-map';
import type { ManagerAuthOptions } from './auth-wiring.js';
import {
  type CrashLoopPolicy,
  crashLoopDefaults,
  type ReconnectPolicy,
  reconnectDefaults,
} from './backoff.js';
import { Catalog } from './catalog.js';
import { type Clock, systemClock } from './clock.js';
import type { HostCommand } from './commands.js';
import { ServerConnection } from './connection.js';
import { Emitter } from './emitter.js';
import {
  ManagerClosedError,
  ServerNotEnabledError,
  ServerUnavailableError,
  UnknownServerError,
  UnknownToolError,
} from './errors.js';
import { type HostTool, type HostToolCallOptions, makeAuthenticateTool } from './host-tool.js';
import { type ManagerLimits, resolveLimits } from './limits.js';
import { NameRegistry } from './names.js';
import { FileSink, type HostToolResult, normalizeResult } from './normalize-result.js';
import { Pool } from './pool.js';
import { diffServers, type ReloadResult } from './reload.js';
import type { HostResource, HostResourceTemplate } from './resources.js';
import { ManagerScope } from './scope.js';
import type { ManagerEvents, ManagerSnapshot, ServerState } from './state.js';
import {
  assertEnabled,
  createTransport,
  isLocal,
  type TransportContext,
  type TransportFactory,
} from './transport-factory.js';

/** The host's handlers for server-to-client requests, plus URL elicitation (-32042). */
export interface ManagerHandlers extends ClientHandlers {
  /**
   * A tool call answered -32042: the user must visit these URLs first. Resolve once they
   * did (the call is retried once); reject to fail the call.
   */
  urlElicitation?: (
    server: string,
    elicitations: UrlElicitation[],
    context: { signal?: AbortSignal },
  ) => Promise<void> | void;
}

export interface McpManagerOptions {
  /** `@mcpkit/config`'s resolved servers, or a function that resolves them. */
  servers?: readonly ResolvedServer[] | (() => Promise<readonly ResolvedServer[]>);
  clientInfo?: Implementation;
  /** Shared by all servers, or chosen per server. */
  handlers?: ManagerHandlers | ((server: string) => ManagerHandlers | undefined);
  auth?: ManagerAuthOptions;
  limits?: Partial<ManagerLimits>;
  /** Replace the config → transport mapping. The enabled-status gate still runs first. */
  transportFactory?: TransportFactory;
  /** Host-registered in-process servers (`type: "sdk"` entries, by their `name`). */
  inProcess?: Record<string, () => Transport | Promise<Transport>>;
  /** `http` entries fall back to legacy HTTP+SSE on 400/404/405. Default true. */
  httpFallback?: boolean;
  /** Supervision policies (tests pass short ones). */
  reconnect?: Partial<ReconnectPolicy>;
  crashLoop?: Partial<CrashLoopPolicy>;
  /** Where binary tool results are written (a private directory is made inside). Default the OS temp dir. */
  tempDir?: string;
  clock?: Clock;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  home?: string;
}

/** The manager's reading surface, shared by `scope()` views. */
export interface ManagerView {
  snapshot(): ManagerSnapshot;
  tools(options?: { signal?: AbortSignal }): Promise<HostTool[]>;
  resolveToolName(hostName: string): { server: string; tool: string } | undefined;
  commands(options?: { signal?: AbortSignal }): Promise<HostCommand[]>;
  listResources(server?: string, options?: { signal?: AbortSignal }): Promise<HostResource[]>;
  listResourceTemplates(
    server?: string,
    options?: { signal?: AbortSignal },
  ): Promise<HostResourceTemplate[]>;
  readResource(
    server: string,
    uri: string,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<ReadResourceResult>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Many MCP servers at once, for a host: batched connect, an immutable state snapshot with
 * events, supervision, needs-auth, and tools, prompts and resources ready for a model.
 */
export class McpManager implements ManagerView {
  readonly limits: ManagerLimits;
  private readonly options: McpManagerOptions;
  private readonly clock: Clock;
  private readonly events = new Emitter<ManagerEvents>();
  private readonly connections = new Map<string, ServerConnection>();
  private readonly catalog: Catalog;
  private readonly files: FileSink;
  private readonly toolNames = new NameRegistry();
  private readonly commandNames = new NameRegistry();
  private readonly pools: { local: Pool; remote: Pool };
  private readonly needsAuthUntil = new Map<string, number>();
  private readonly hostDisabled = new Set<string>();
  private readonly background = new Set<Promise<unknown>>();
  private readonly reconnectPolicy: ReconnectPolicy;
  private readonly crashLoopPolicy: CrashLoopPolicy;
  private readonly auth: ManagerAuthOptions;
  private cachedSnapshot: ManagerSnapshot | undefined;
  private closed = false;

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
    this.catalog = new Catalog({
      limits: this.limits,
      clock: this.clock,
      events: this.events,
      callTool: (server, tool, args, o) => this.callTool(server, tool, args, o),
      getPrompt: (server, prompt) => (args, o) => this.getPrompt(server, prompt, args, o),
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
      this.needsAuthUntil.set(state.name, this.clock.now() + this.limits.needsAuthCacheMs);
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
      onwarning: (error) => this.events.emit('warning', { server: name, error }),
      onstreamlost: (reason) => this.connections.get(name)?.noteStreamLost(reason),
    };
  }

  private handlersFor(name: string): ManagerHandlers | undefined {
    const h = this.options.handlers;
    return typeof h === 'function' ? h(name) : h;
  }

  private makeClient(server: ResolvedServer): McpClient {
    const { urlElicitation: _, ...handlers } = this.handlersFor(server.name) ?? {};
    const client: McpClient = new McpClient({
      name: server.name,
      clientInfo: this.options.clientInfo ?? { name: 'mcpkit-manager', version: '0.1.0' },
      handlers,
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
    const initial = this.initialState(server);
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

  private initialState(server: ResolvedServer): ServerState {
    const status = server.status ?? 'enabled';
    if (status !== 'enabled' || server.config.disabled === true)
      return {
        name: server.name,
        state: 'disabled',
        reason: new ServerNotEnabledError(
          server.name,
          status === 'enabled' ? 'disabled' : status,
          server.reason,
        ).message,
      };
    if (this.hostDisabled.has(server.name))
      return {
        name: server.name,
        state: 'disabled',
        reason: `server "${server.name}" was disabled by the host; call enable("${server.name}")`,
      };
    return {
      name: server.name,
      state: 'pending',
      reconnectAttempt: 0,
      maxReconnectAttempts: this.reconnectPolicy.fastAttempts,
      reason: 'not connected yet',
    };
  }

  private cachedNeedsAuth(connection: ServerConnection): boolean {
    const until = this.needsAuthUntil.get(connection.name);
    return until !== undefined && until > this.clock.now();
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
    const startable = connections.filter(
      (c) => c.state.state === 'pending' && !this.cachedNeedsAuth(c),
    );
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
    for (const c of added)
      if (this.cachedNeedsAuth(c))
        this.track(c.stop(this.cachedNeedsAuthState(c), 'needs-auth (cached verdict)'));
    if (options.late) this.track(options.late.then((more) => this.addLate(more)));
    await this.start(added, options.signal);
    await this.settled();
    return this.snapshot();
  }

  private cachedNeedsAuthState(c: ServerConnection): ServerState {
    const previous = c.state;
    if (previous.state === 'needs-auth') return previous;
    return {
      name: c.name,
      state: 'needs-auth',
      error: new ServerUnavailableError(
        c.name,
        'needs-auth',
        `it needed a sign-in recently; call authenticate("${c.name}")`,
      ),
      url: 'url' in c.server.config ? String(c.server.config.url) : '',
    };
  }

  /** Late servers (connectors): those whose signature a present server has are dropped. */
  private async addLate(more: readonly ResolvedServer[]): Promise<void> {
    if (this.closed) return;
    const { serverSignature } = await import('@mcpkit/config');
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
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: HostToolCallOptions = {},
  ): Promise<HostToolResult> {
    const connection = this.connection(server);
    const timeoutMs = options.timeoutMs ?? this.limits.toolTimeoutMs;
    const client = await connection.ready({
      ...(options.signal ? { signal: options.signal } : {}),
      timeoutMs,
    });
    const call = () =>
      client.callTool(
        { name: tool, arguments: args },
        {
          timeoutMs,
          resetTimeoutOnProgress: true,
          // Always a progress token: long tools that report progress are never cut off.
          onprogress: (p) => options.onprogress?.(p),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      );
    let result: Awaited<ReturnType<McpClient['callTool']>>;
    try {
      result = await call().catch(async (error: unknown) => {
        const handler = this.handlersFor(server)?.urlElicitation;
        if (!handler || (error as { name?: string }).name !== 'UrlElicitationRequiredError')
          throw error;
        await handler(server, (error as { elicitations: UrlElicitation[] }).elicitations, {
          ...(options.signal ? { signal: options.signal } : {}),
        });
        return call();
      });
    } catch (error) {
      connection.noteCallError(error);
      throw error;
    }
    connection.noteCallSuccess();
    return normalizeResult(result, {
      server,
      tool,
      budgetChars: this.limits.outputBudgetChars,
      files: this.files,
    });
  }

  private async getPrompt(
    server: string,
    prompt: string,
    args: Record<string, string>,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<GetPromptResult> {
    const client = await this.connection(server).ready(options);
    return client.getPrompt(prompt, args, options);
  }

  /** Every tool of every connected server (and warm-cached lazy ones), named for a host. */
  async tools(_options: { signal?: AbortSignal } = {}): Promise<HostTool[]> {
    this.assertOpen();
    const pairs: Array<{ server: string; tool: import('@mcpkit/protocol').Tool }> = [];
    const auth: Array<{ server: string; url: string }> = [];
    await Promise.all(
      [...this.connections.values()].map(async (c) => {
        if (c.state.state === 'needs-auth') auth.push({ server: c.name, url: c.state.url });
        const client = c.state.state === 'connected' ? c.client : undefined;
        if (!client && !this.catalog.warm.has(c.name)) return;
        for (const tool of await this.catalog.ensure(c.name, client, 'tools'))
          pairs.push({ server: c.name, tool });
      }),
    );
    const collisions = this.toolNames.rebuild([
      ...pairs.map((p) => ({ server: p.server, item: p.tool.name })),
      ...auth.map((a) => ({ server: a.server, item: 'authenticate' })),
    ]);
    for (const c of collisions)
      this.events.emit('warning', {
        server: c.kept[1]!.server,
        error: new Error(
          `tool name "${c.name}" is shared by ${c.kept.map((k) => `"${k.item}" of server "${k.server}"`).join(' and ')}; both are kept, the second as "${this.toolNames.nameOf(c.kept[1]!.server, c.kept[1]!.item)}"`,
        ),
      });
    const out = pairs.map((p) =>
      this.catalog.hostTool(p.server, p.tool, this.toolNames.nameOf(p.server, p.tool.name)!),
    );
    for (const a of auth)
      out.push(
        makeAuthenticateTool(
          a.server,
          this.toolNames.nameOf(a.server, 'authenticate')!,
          a.url,
          (o) => this.authenticateTool(a.server, o),
        ),
      );
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The server and tool behind a host name from the last `tools()`. */
  resolveToolName(hostName: string): { server: string; tool: string } | undefined {
    const entry = this.toolNames.resolve(hostName);
    return entry ? { server: entry.server, tool: entry.item } : undefined;
  }

  /** Calls a tool by its host name. */
  async callHostTool(
    hostName: string,
    args: Record<string, unknown>,
    options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    const target = this.resolveToolName(hostName);
    if (!target) throw new UnknownToolError(hostName);
    if (
      target.tool === 'authenticate' &&
      this.connections.get(target.server)?.state.state === 'needs-auth'
    )
      return this.authenticateTool(target.server, options);
    return this.callTool(target.server, target.tool, args, options);
  }

  /** Every prompt of every connected server as a host command. */
  async commands(_options: { signal?: AbortSignal } = {}): Promise<HostCommand[]> {
    this.assertOpen();
    const pairs: Array<{ server: string; prompt: import('@mcpkit/protocol').Prompt }> = [];
    await Promise.all(
      [...this.connections.values()].map(async (c) => {
        if (c.state.state !== 'connected') return;
        for (const prompt of await this.catalog.ensure(c.name, c.client, 'prompts'))
          pairs.push({ server: c.name, prompt });
      }),
    );
    this.commandNames.rebuild(pairs.map((p) => ({ server: p.server, item: p.prompt.name })));
    return pairs
      .map((p) =>
        this.catalog.hostCommand(
          p.server,
          p.prompt,
          this.commandNames.nameOf(p.server, p.prompt.name)!,
        ),
      )
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private connectedOnes(server?: string): ServerConnection[] {
    const list = server === undefined ? [...this.connections.values()] : [this.connection(server)];
    return list.filter((c) => c.state.state === 'connected');
  }

  async listResources(
    server?: string,
    _options: { signal?: AbortSignal } = {},
  ): Promise<HostResource[]> {
    const out: HostResource[] = [];
    for (const c of this.connectedOnes(server))
      for (const r of await this.catalog.ensure(c.name, c.client, 'resources'))
        out.push({ ...r, server: c.name });
    return out;
  }

  async listResourceTemplates(
    server?: string,
    _options: { signal?: AbortSignal } = {},
  ): Promise<HostResourceTemplate[]> {
    const out: HostResourceTemplate[] = [];
    for (const c of this.connectedOnes(server))
      for (const t of await this.catalog.ensure(c.name, c.client, 'templates'))
        out.push({ ...t, server: c.name });
    return out;
  }

  async readResource(
    server: string,
    uri: string,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<ReadResourceResult> {
    const client = await this.connection(server).ready(options);
    return client.readResource(uri, options);
  }

  // ---- auth -------------------------------------------------------------------------------

  /**
   * Runs the interactive sign-in for a server (needs `auth.interactive`), then reconnects
   * it. Resolves with its new state.
   */
  async authenticate(name: string, _options: { signal?: AbortSignal } = {}): Promise<ServerState> {
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
    this.needsAuthUntil.delete(name);
    await connection.reconnect('signed in');
    await this.settled();
    return connection.state;
  }

  private async authenticateTool(
    server: string,
    _options?: HostToolCallOptions,
  ): Promise<HostToolResult> {
    const text = (t: string, isError: boolean): HostToolResult => ({
      content: [{ type: 'text', text: t }],
      text: t,
      isError,
      truncated: false,
      files: [],
    });
    try {
      const state = await this.authenticate(server);
      return state.state === 'connected'
        ? text(`Signed in to "${server}"; its tools are available now.`, false)
        : text(
            `Signed in, but "${server}" is ${state.state}: ${'error' in state ? state.error.message : ''}`,
            true,
          );
    } catch (error) {
      return text((error as Error).message, true);
    }
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Drops and reconnects a server now (also lifts a crash-loop hold or a needs-auth cache). */
  async reconnect(name: string): Promise<ServerState> {
    const connection = this.connection(name);
    if (connection.state.state === 'disabled')
      throw new ServerUnavailableError(name, 'disabled', `${connection.state.reason}`);
    this.needsAuthUntil.delete(name);
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
    const names = new Set<string>();
    const inline: ResolvedServer[] = [];
    for (const entry of options.servers) {
      if (typeof entry === 'string') {
        if (!this.connections.has(entry))
          throw new UnknownServerError(entry, [...this.connections.keys()]);
        names.add(entry);
      } else {
        inline.push({
          name: entry.name,
          scope: 'dynamic',
          source: 'scope()',
          config: entry.config,
          status: 'enabled',
          reason: 'inline in a scope',
          policy: { allowed: true } as never,
          missingVariables: [],
        });
      }
    }
    const own = new McpManager({ ...this.options, servers: inline });
    return new ManagerScope(this, names, own);
  }

  private assertOpen(): void {
    if (this.closed) throw new ManagerClosedError();
  }

  /** Ends every connection and process tree, removes written files; idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    await Promise.all([...this.background]);
    this.catalog.clear();
    await this.files.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

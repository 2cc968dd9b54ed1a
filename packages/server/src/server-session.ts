import {
  type InstrumentedRequest,
  type JsonRpcId,
  JsonRpcPeer,
  type RequestContext,
  RpcError,
  RpcErrorCode,
  type Transport,
} from '@mcpkit/jsonrpc';
import {
  type ClientCapabilities,
  type Era,
  type Implementation,
  isLegacyVersion,
  type LoggingLevel,
  MetaKey,
  Notification,
} from '@mcpkit/protocol';
import {
  CACHEABLE,
  complete,
  FEATURE_METHODS,
  LEVELS,
  legacyCapabilities,
  REMOVED_IN_MODERN,
  readModernMeta,
  SESSION_METHODS,
} from './era-rules.js';
import { invalidParams, methodNotFound, unsupportedVersion } from './errors.js';
import type { SessionRecord } from './http/session-store.js';
import type { McpServer } from './mcp-server.js';
import { SessionRequestContext } from './request-context.js';
import { StdioServerTransport } from './stdio-server-transport.js';
import { declaresTasks, TASKS_NOTIFICATION, tasksNotDeclared } from './tasks-ext.js';
import type { HandlerContext } from './types.js';

export interface ServerSessionOptions {
  /** HTTP session id (2025 revisions over Streamable HTTP). */
  sessionId?: string;
  /** Serve only this era: the HTTP binding pins a stateless exchange to `modern`. */
  era?: Era;
  /** Ends the SSE stream of a request (HTTP, SEP-1699 polling). */
  closeSseStream?: (requestId: JsonRpcId) => void;
  /** Names the client in error messages. */
  label?: string;
  /** `network.transport` for the instrumentation (`tcp` for HTTP; stdio is known: `pipe`). */
  networkTransport?: string;
  /**
   * Saves the 2025 session's state where other replicas find it; awaited before the answer
   * to `initialize`, `logging/setLevel` and `resources/(un)subscribe` goes out.
   */
  persistState?: (record: SessionRecord) => Promise<void>;
  /** Added to the error answering a request over the transport's size limit (how to raise it). */
  tooLargeAdvice?: string;
}

/** The requests whose caller a session's lists are shown to (see `ServerSession.viewer`). */
const VIEW_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'subscriptions/listen',
]);

/**
 * Who is at the other end of a session, as its first request said: the era, the revision,
 * and what it declared. A 2025 client declares its capabilities once, in `initialize`; a
 * 2026-07-28 client declares them with every request, and these are its first request's.
 */
export interface SessionClient {
  era: Era;
  protocolVersion: string;
  capabilities: ClientCapabilities;
  info: Implementation | undefined;
}

interface LegacyState {
  version: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
  /** The URIs the client subscribed to, through any replica of a shared session. */
  subscriptions: Set<string>;
  /**
   * Those this connection follows (its server's subscription hook was called here). A shared
   * session's subscription is followed by the one replica that took it, so that an update
   * reaches the client once, however many replicas hold a copy of the session.
   */
  followed: Set<string>;
}

interface Listen {
  id: JsonRpcId;
  filter: {
    toolsListChanged?: boolean;
    promptsListChanged?: boolean;
    resourcesListChanged?: boolean;
    resourceSubscriptions?: string[];
    /** The tasks extension: `notifications/tasks` for these tasks. */
    taskIds?: string[];
  };
  end: () => void;
}

/**
 * One connection of an `McpServer`: a stdio process, an HTTP session, or one stateless
 * 2026-07-28 HTTP exchange. It owns the `JsonRpcPeer`, tells the eras apart per request
 * (`initialize` opens the 2025 era; a request `_meta` with a protocol version is 2026-07-28),
 * and keeps the state of the 2025 era (version, capabilities, log level, subscriptions).
 */
export class ServerSession {
  readonly peer: JsonRpcPeer;
  readonly sessionId: string | undefined;
  onclose: (() => void) | undefined;
  /** Resolves when the connection has closed. */
  readonly closed: Promise<void>;
  /** Told the version an `initialize` settled on. */
  onnegotiated: ((version: string) => void) | undefined;
  /**
   * Told once, when the client is known: a 2025 client when it sends
   * `notifications/initialized` after its `initialize` (or, without it, its next request
   * other than `ping`), a 2026-07-28 client at its first request with valid `_meta`. See
   * `client`.
   */
  onclient: ((client: SessionClient) => void) | undefined;
  private knownClient: SessionClient | undefined;
  /** The context of this session's latest list or listen request: whom its lists were shown to. */
  private viewedBy: HandlerContext | undefined;
  private legacy: LegacyState | undefined;
  private readonly listens = new Map<JsonRpcId, Listen>();
  /** `network.transport` for the instrumentation: `pipe` (stdio), `tcp` (HTTP). */
  private readonly networkTransport: string | undefined;
  /** This connection as a subscriber (the hooks count subscribers by this object). */
  private readonly subscriptionContext: { subscriber: object; sessionId: string | undefined };

  constructor(
    private readonly server: McpServer,
    transport: Transport,
    private readonly options: ServerSessionOptions = {},
  ) {
    this.sessionId = options.sessionId;
    this.subscriptionContext = { subscriber: this, sessionId: options.sessionId };
    this.networkTransport =
      transport instanceof StdioServerTransport ? 'pipe' : options.networkTransport;
    this.peer = new JsonRpcPeer(transport, {
      label: options.label ?? `client of "${server.info.name}"`,
      respondToParseErrors: true,
      ...(options.tooLargeAdvice !== undefined ? { tooLargeAdvice: options.tooLargeAdvice } : {}),
      // Requests to the client carry their own deadline; answers to it are not ours to time.
    });
    this.peer.onerror = (error) => server.reportError(error);
    const hooks = server.instrumentation;
    const endSession =
      hooks?.sessionStart !== undefined && (hooks.enabled === undefined || hooks.enabled())
        ? hooks.sessionStart('server')
        : undefined;
    let closed!: () => void;
    this.closed = new Promise((resolve) => {
      closed = resolve;
    });
    this.peer.onclose = (cause) => {
      closed();
      // A session is what `initialize` opened (2025), or a stdio connection; a 2026-07-28
      // HTTP exchange is one request, not a session.
      if (
        endSession !== undefined &&
        (this.legacy !== undefined || this.networkTransport === 'pipe')
      )
        endSession(
          {
            protocolVersion: this.legacy?.version,
            networkTransport: this.networkTransport,
            // `tcp` is what the HTTP binding passes; its HTTP version is per request.
            networkProtocolName: this.networkTransport === 'tcp' ? 'http' : undefined,
          },
          cause,
        );
      for (const listen of this.listens.values()) listen.end();
      this.listens.clear();
      // A connection that ends takes its subscriptions with it.
      for (const uri of this.legacy?.followed ?? [])
        server.unsubscribed(uri, this.subscriptionContext);
      this.legacy?.followed.clear();
      this.onclose?.();
    };
    for (const method of [...FEATURE_METHODS, ...SESSION_METHODS]) {
      this.peer.setRequestHandler(method, (params, rctx) => this.handle(method, params, rctx));
    }
    // A 2025 client is known, and may be asked things, once it says it is initialized (or
    // goes on with a request other than ping without saying so).
    this.peer.setNotificationHandler(Notification.Initialized, () => this.meetLegacy());
  }

  /**
   * Takes up a 2025 session that another replica opened, from its stored record: the client
   * is known at once. Its subscriptions stay followed by the replica that took each one (an
   * update reaches the client from there, once): this copy knows them but does not follow them.
   */
  async restore(record: SessionRecord): Promise<void> {
    if (this.legacy) throw new TypeError('restore: this session is already initialized');
    this.legacy = {
      version: record.protocolVersion,
      clientCapabilities: record.clientCapabilities as ClientCapabilities,
      clientInfo: record.clientInfo as Implementation | undefined,
      logLevel: record.logLevel as LoggingLevel | undefined,
      subscriptions: new Set(record.subscriptions),
      followed: new Set(),
    };
    this.onnegotiated?.(record.protocolVersion);
    this.meetLegacy();
  }

  /**
   * @internal Another replica changed this shared session (its log level, a subscription).
   * A URI the client unsubscribed from is no longer followed here; with `follow` (this copy
   * holds the client's GET stream) new ones are followed here. Resolves whether any was.
   */
  async syncRecord(record: SessionRecord, follow: boolean): Promise<boolean> {
    const legacy = this.legacy;
    if (!legacy) return false;
    legacy.logLevel = record.logLevel as LoggingLevel | undefined;
    legacy.subscriptions = new Set(record.subscriptions);
    for (const uri of [...legacy.followed]) {
      if (legacy.subscriptions.has(uri)) continue;
      legacy.followed.delete(uri);
      this.server.unsubscribed(uri, this.subscriptionContext);
    }
    return follow ? this.followAll() : false;
  }

  /**
   * @internal This copy of a shared session follows all its subscriptions (it holds the
   * client's GET stream now, where updates go). Resolves whether it took up any.
   */
  async followAll(): Promise<boolean> {
    const legacy = this.legacy;
    let took = false;
    for (const uri of legacy?.subscriptions ?? []) {
      if (legacy!.followed.has(uri)) continue;
      try {
        await this.server.onsubscribe?.(uri, this.subscriptionContext);
        legacy!.followed.add(uri);
        took = true;
      } catch (error) {
        this.server.reportError(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return took;
  }

  /** @internal Another replica follows this shared session's subscriptions now: this copy lets go. */
  unfollowAll(): void {
    for (const uri of this.legacy?.followed ?? [])
      this.server.unsubscribed(uri, this.subscriptionContext);
    this.legacy?.followed.clear();
  }

  private persist<T>(result: T): T | Promise<T> {
    const legacy = this.legacy;
    if (!this.options.persistState || !legacy) return result;
    return this.options
      .persistState({
        protocolVersion: legacy.version,
        clientCapabilities: legacy.clientCapabilities as Record<string, unknown>,
        clientInfo: legacy.clientInfo,
        logLevel: legacy.logLevel,
        subscriptions: [...legacy.subscriptions],
      })
      .then(() => result);
  }

  /** The 2025-era version negotiated by `initialize`, if any. */
  get protocolVersion(): string | undefined {
    return this.legacy?.version;
  }

  /**
   * The client once known (see `onclient`); undefined before. Lets a server decide outside
   * any request whether it may ask the client something: sampling, elicitation and roots
   * need a 2025 client that declared them (a 2026-07-28 client is asked only within a
   * request, through an `input_required` result).
   */
  get client(): SessionClient | undefined {
    return this.knownClient;
  }

  private meetLegacy(): void {
    const legacy = this.legacy;
    if (!legacy) return;
    this.meet({
      era: 'legacy',
      protocolVersion: legacy.version,
      capabilities: legacy.clientCapabilities,
      info: legacy.clientInfo,
    });
  }

  private meet(client: SessionClient): void {
    if (this.knownClient) return;
    this.knownClient = Object.freeze(client);
    this.onclient?.(this.knownClient);
  }

  start(): Promise<void> {
    return this.peer.start();
  }

  /** Ends open subscriptions gracefully, then closes the transport. */
  async close(): Promise<void> {
    if (this.listens.size > 0) {
      for (const listen of this.listens.values()) listen.end();
      this.listens.clear();
      // Let the graceful listen results reach the transport before it closes.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.peer.close();
  }

  /** @internal The caller this session's lists were last shown to (`McpServer.visibilityChanging`). */
  get viewer(): HandlerContext | undefined {
    return this.viewedBy;
  }

  /** @internal */
  listChanged(kind: 'tools' | 'prompts' | 'resources'): void {
    const method = `notifications/${kind}/list_changed`;
    if (this.legacy) this.peer.notify(method).catch(() => {});
    const key = `${kind}ListChanged` as const;
    for (const listen of this.listens.values()) {
      if (listen.filter[key]) this.notifyListen(listen, method, {});
    }
  }

  /** @internal */
  resourceUpdated(uri: string): void {
    if (this.legacy?.followed.has(uri)) {
      this.peer.notify(Notification.ResourceUpdated, { uri }).catch(() => {});
    }
    for (const listen of this.listens.values()) {
      if (listen.filter.resourceSubscriptions?.includes(uri)) {
        this.notifyListen(listen, Notification.ResourceUpdated, { uri });
      }
    }
  }

  /** @internal A task changed: `notifications/tasks` to the listen streams that follow it. */
  taskChanged(taskId: string, detailed: Record<string, unknown>): void {
    for (const listen of this.listens.values()) {
      if (listen.filter.taskIds?.includes(taskId))
        this.notifyListen(listen, TASKS_NOTIFICATION, detailed);
    }
  }

  private notifyListen(listen: Listen, method: string, params: Record<string, unknown>): void {
    this.peer
      .notify(
        method,
        { ...params, _meta: { [MetaKey.SubscriptionId]: listen.id } },
        { relatedRequestId: listen.id },
      )
      .catch(() => {});
  }

  /**
   * Not `async`: a 2025-era request returns the feature handler's promise itself, one
   * promise layer fewer on every call (a thrown error is the peer's to answer).
   */
  private handle(method: string, params: Record<string, unknown>, rctx: RequestContext): unknown {
    const hooks = this.server.instrumentation;
    if (hooks === undefined || (hooks.enabled !== undefined && !hooks.enabled()))
      return this.route(method, params, rctx);
    return hooks.serverRequest(this.describe(method, params, rctx, rctx.id), () =>
      this.route(method, params, rctx),
    );
  }

  /**
   * What the instrumentation is told of a request: one the client sent (`requestId` its
   * id), or one this server sends the client while handling `rctx` (its id told later).
   */
  private describe(
    method: string,
    params: Record<string, unknown> | undefined,
    rctx: RequestContext,
    requestId: JsonRpcId | undefined,
  ): InstrumentedRequest {
    const http = rctx.httpPeer;
    return {
      method,
      params,
      serverName: this.server.info.name,
      protocolVersion: this.legacy?.version ?? (rctx.meta?.[MetaKey.ProtocolVersion] as string),
      sessionId: this.sessionId,
      networkTransport: this.networkTransport,
      requestId,
      networkProtocolName: http !== undefined ? 'http' : undefined,
      // The conventions write HTTP/2 as `2`; Node's parser says `2.0`.
      networkProtocolVersion: http === undefined ? undefined : httpVersionOf(http.httpVersion),
      clientAddress: http?.socket.remoteAddress,
      clientPort: http?.socket.remotePort,
      ...(rctx.traceHeaders !== undefined ? { traceHeaders: rctx.traceHeaders } : {}),
    };
  }

  /**
   * Sends the client a request a handler makes (`ctx.request`: sampling, elicitation,
   * roots) on the response stream of `rctx`: through the instrumentation's
   * `clientRequest` while it is on (a CLIENT span here, trace context in `_meta`).
   * @internal
   */
  requestClient(
    rctx: RequestContext,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const options = { cancellation: rctx.cancellation };
    const hooks = this.server.instrumentation;
    if (hooks?.clientRequest === undefined || (hooks.enabled !== undefined && !hooks.enabled()))
      return rctx.request(method, params, options);
    return hooks.clientRequest(this.describe(method, params, rctx, undefined), (traced, onid) =>
      rctx.request(method, traced, onid === undefined ? options : { ...options, onid }),
    );
  }

  private route(method: string, params: Record<string, unknown>, rctx: RequestContext): unknown {
    const meta = rctx.meta;
    const modern =
      this.options.era === 'modern' ||
      (this.options.era !== 'legacy' &&
        ((meta !== undefined && MetaKey.ProtocolVersion in meta) ||
          (this.legacy === undefined && method !== 'initialize')));
    if (modern) return this.handleModern(method, params, rctx);
    if (method === 'initialize') return this.initialize(params);
    const legacy = this.legacy;
    if (!legacy) {
      throw new RpcError(
        RpcErrorCode.InvalidRequest,
        'Server not initialized: send initialize first',
      );
    }
    // A ping may come before notifications/initialized; any other request means it is done.
    if (!this.knownClient && method !== 'ping') this.meetLegacy();
    switch (method) {
      case 'ping':
        return {};
      case 'logging/setLevel': {
        const level = params.level as LoggingLevel;
        if (!LEVELS.includes(level))
          throw invalidParams(`Unknown log level ${JSON.stringify(level)}`);
        legacy.logLevel = level;
        return this.persist({});
      }
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.subscribe(method, params, legacy);
      case 'server/discover':
      case 'subscriptions/listen':
        throw methodNotFound(method);
    }
    const ctx = new SessionRequestContext(
      rctx,
      'legacy',
      legacy.version,
      legacy.clientCapabilities,
      legacy.clientInfo,
      this.sessionId,
      legacy,
      this.options.closeSseStream,
      this,
    );
    if (VIEW_METHODS.has(method)) this.viewedBy = ctx;
    return this.server.dispatch(method, params, ctx);
  }

  private async subscribe(
    method: 'resources/subscribe' | 'resources/unsubscribe',
    params: Record<string, unknown>,
    legacy: LegacyState,
  ): Promise<unknown> {
    if (!this.server.capabilities().resources?.subscribe) throw methodNotFound(method);
    const uri = params.uri;
    if (typeof uri !== 'string') throw invalidParams(`${method} needs a "uri" string`);
    if (method === 'resources/subscribe') {
      if (legacy.subscriptions.has(uri)) return {};
      await this.server.onsubscribe?.(uri, this.subscriptionContext);
      legacy.subscriptions.add(uri);
      legacy.followed.add(uri);
    } else if (legacy.subscriptions.delete(uri) && legacy.followed.delete(uri)) {
      this.server.unsubscribed(uri, this.subscriptionContext);
    }
    return this.persist({});
  }

  private async handleModern(
    method: string,
    params: Record<string, unknown>,
    rctx: RequestContext,
  ): Promise<unknown> {
    const m = readModernMeta(rctx.meta, this.server.versions);
    if (!this.knownClient)
      this.meet({
        era: 'modern',
        protocolVersion: m.version,
        capabilities: m.clientCapabilities,
        info: m.clientInfo,
      });
    if (REMOVED_IN_MODERN.has(method)) throw methodNotFound(method);
    const ctx = new SessionRequestContext(
      rctx,
      'modern',
      m.version,
      m.clientCapabilities,
      m.clientInfo,
      this.sessionId,
      m,
      this.options.closeSseStream,
    );
    const result = await this.modern(method, params, ctx, rctx);
    return complete(result);
  }

  private modern(
    method: string,
    params: Record<string, unknown>,
    ctx: HandlerContext,
    rctx: RequestContext,
  ): Promise<unknown> | unknown {
    if (method === 'server/discover') {
      const result: Record<string, unknown> = {
        supportedVersions: [...this.server.versions],
        capabilities: this.server.capabilities(),
        ...this.server.cacheHints,
        _meta: { [MetaKey.ServerInfo]: this.server.info },
      };
      if (this.server.instructions !== undefined) result.instructions = this.server.instructions;
      return result;
    }
    if (VIEW_METHODS.has(method)) this.viewedBy = ctx;
    if (method === 'subscriptions/listen') return this.listen(params, rctx, ctx);
    return Promise.resolve(this.server.dispatch(method, params, ctx)).then((result) => {
      if (CACHEABLE.has(method) && (result as { resultType?: unknown }).resultType === undefined) {
        return { ...this.server.cacheHints, ...(result as object) };
      }
      return result;
    });
  }

  private listen(
    params: Record<string, unknown>,
    rctx: RequestContext,
    ctx: HandlerContext,
  ): Promise<unknown> {
    const caps = this.server.capabilities();
    const asked = (params.notifications ?? {}) as Record<string, unknown>;
    if (typeof asked !== 'object' || asked === null || Array.isArray(asked)) {
      throw invalidParams('subscriptions/listen needs a "notifications" filter object');
    }
    // The acknowledgment names only what this server will deliver.
    const filter: Listen['filter'] = {};
    if (asked.toolsListChanged === true && caps.tools?.listChanged) filter.toolsListChanged = true;
    if (asked.promptsListChanged === true && caps.prompts?.listChanged)
      filter.promptsListChanged = true;
    if (asked.resourcesListChanged === true && caps.resources?.listChanged) {
      filter.resourcesListChanged = true;
    }
    if (Array.isArray(asked.resourceSubscriptions) && caps.resources?.subscribe) {
      filter.resourceSubscriptions = asked.resourceSubscriptions
        .filter((u): u is string => typeof u === 'string')
        .slice(0, 1000);
    }
    if (asked.taskIds !== undefined) {
      const store = this.server.taskStore;
      if (store) {
        if (!declaresTasks(ctx)) throw tasksNotDeclared('subscriptions/listen with taskIds');
        // Only live tasks of this caller are followed; the acknowledgment names them.
        if (Array.isArray(asked.taskIds))
          filter.taskIds = asked.taskIds
            .filter((t): t is string => typeof t === 'string' && store.visible(t, ctx))
            .slice(0, 1000);
      }
    }
    const id = rctx.id;
    // Each listen stream is a subscriber of its own for the hooks, from ack to end.
    const context = { subscriber: {}, sessionId: this.sessionId };
    const uris = filter.resourceSubscriptions ?? [];
    let hooked = false;
    const unhook = () => {
      if (!hooked) return;
      hooked = false;
      for (const uri of uris) this.server.unsubscribed(uri, context);
    };
    return new Promise((resolve, reject) => {
      const listen: Listen = {
        id,
        filter,
        end: () => {
          unhook();
          resolve({ _meta: { [MetaKey.SubscriptionId]: id } });
        },
      };
      rctx.signal.addEventListener(
        'abort',
        () => {
          this.listens.delete(id);
          unhook();
          reject(rctx.signal.reason);
        },
        { once: true },
      );
      if (this.server.onsubscribe && uris.length > 0) {
        hooked = true;
        for (const uri of uris)
          Promise.resolve()
            .then(() => this.server.onsubscribe?.(uri, context))
            .catch((error: unknown) =>
              this.server.reportError(error instanceof Error ? error : new Error(String(error))),
            );
      }
      rctx
        .notify(Notification.SubscriptionsAcknowledged, {
          _meta: { [MetaKey.SubscriptionId]: id },
          notifications: filter,
        })
        .then(
          () => {
            if (!rctx.signal.aborted) this.listens.set(id, listen);
          },
          (error: unknown) => reject(error),
        );
    });
  }

  private initialize(params: Record<string, unknown>): unknown {
    if (this.legacy) {
      throw new RpcError(
        RpcErrorCode.InvalidRequest,
        `Invalid Request: this connection is already initialized (${this.legacy.version})`,
      );
    }
    const requested = params.protocolVersion;
    if (typeof requested !== 'string') {
      throw invalidParams('initialize needs a "protocolVersion" string');
    }
    const legacyVersions = this.server.versions.filter((v) => isLegacyVersion(v));
    if (legacyVersions.length === 0) {
      // A modern-only server names its versions: a legacy client can show nothing else.
      throw unsupportedVersion(requested, this.server.versions);
    }
    // The requested revision when we speak it, else our newest handshake-era one.
    const version = legacyVersions.includes(requested as never)
      ? requested
      : legacyVersions[legacyVersions.length - 1]!;
    const capabilities = params.capabilities;
    this.legacy = {
      version,
      clientCapabilities:
        typeof capabilities === 'object' && capabilities !== null
          ? (capabilities as ClientCapabilities)
          : {},
      clientInfo: params.clientInfo as Implementation | undefined,
      logLevel: undefined,
      subscriptions: new Set(),
      followed: new Set(),
    };
    this.onnegotiated?.(version);
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: legacyCapabilities(this.server.capabilities(), version),
      serverInfo: this.server.info,
    };
    if (this.server.instructions !== undefined) result.instructions = this.server.instructions;
    return this.persist(result);
  }
}

/** `network.protocol.version` of an HTTP version as Node reports it (`2.0` is `2`). */
function httpVersionOf(version: string): string {
  return version === '2.0' ? '2' : version;
}

import {
  ConnectionClosedError,
  ErrorCode,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  JsonRpcPeer,
  McpkitError,
  type RequestOptions,
  ResponseLostError,
  RpcError,
  SessionExpiredError,
  type Transport,
} from '@mcpkit/jsonrpc';
import {
  type CallToolResult,
  type ClientCapabilities,
  ClientMethod,
  type CompleteResult,
  type DiscoverResult,
  fastCallToolResult,
  fastInitializeResult,
  fastListToolsResult,
  type GetPromptResult,
  type Implementation,
  type InitializeResult,
  invalidParamHeaders,
  isLegacyVersion,
  type LoggingLevel,
  type LoggingMessageParams,
  McpErrorCode,
  MetaKey,
  Notification,
  PROTOCOL_VERSIONS,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  ServerMethod,
  type SubscriptionFilter,
  type Task,
  type Tool,
  toolParamHeaders,
} from '@mcpkit/protocol';
import type { z } from 'zod';
import {
  answerServerRequest,
  type ClientHandlers,
  capabilitiesFor,
  registerClientHandlers,
} from './client-handlers.js';
import { InvalidResultError, mapRpcError, UnsupportedProtocolVersionError } from './errors.js';
import { ListCache } from './list-cache.js';
import {
  type EraRecord,
  isInputRequired,
  isModernError,
  isModernVersion,
  isRecord,
  meansLegacyServer,
  pickVersion,
  requestMeta,
  sharedEraCache,
  supportedOf,
} from './modern.js';
import {
  type CallOptions,
  type CallToolParams,
  checkClientOptions,
  clientDefaults,
  type McpClientOptions,
  type Subscription,
} from './options.js';
import { OutputSchemas } from './output-schema.js';

type Schemas = typeof import('@mcpkit/protocol/schemas');
type SchemaName = { [K in keyof Schemas]: Schemas[K] extends z.ZodType ? K : never }[keyof Schemas];

let schemas: Promise<Schemas> | undefined;
/** zod and the schemas load on first need: a plain result never needs them. */
function loadSchemas(): Promise<Schemas> {
  schemas ??= import('@mcpkit/protocol/schemas');
  return schemas;
}

/** An empty result (ping, setLevel, subscribe): an object whose `_meta`, if any, is an object. */
const fastEmptyResult = (v: unknown): Record<string, unknown> | undefined =>
  isRecord(v) && (v._meta === undefined || isRecord(v._meta)) ? v : undefined;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });

const LIST_CHANGED: Record<string, 'tools' | 'prompts' | 'resources'> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

/** Methods whose 2026-07-28 results may be `input_required`. */
const MULTI_ROUND: ReadonlySet<string> = new Set([
  ClientMethod.CallTool,
  ClientMethod.GetPrompt,
  ClientMethod.ReadResource,
]);

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

type Paged<K extends string, T> = { [key in K]: T[] } & {
  nextCursor?: string | undefined;
  ttlMs?: number | undefined;
};

type ServerState =
  | { era: 'legacy'; version: string; init: InitializeResult }
  | { era: 'modern'; version: string; discover: DiscoverResult };

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

  private peer: JsonRpcPeer | undefined;
  private server: ServerState | undefined;
  private readonly label: string;
  private readonly validate: boolean;
  private readonly capabilities: ClientCapabilities;
  private meta: Record<string, unknown> = {};
  private logLevel: LoggingLevel | undefined;
  private renewing: Promise<void> | undefined;
  private readonly outputSchemas = new OutputSchemas();
  private readonly lists = new ListCache();
  private readonly toolSchemas = new Map<string, unknown>();
  private readonly taskTools = new Set<string>();
  private readonly acks = new Map<
    JsonRpcId,
    { resolve: (filter: SubscriptionFilter) => void; reject: (error: Error) => void }
  >();
  private readonly resourceSubscriptions = new Set<string>();
  private managed: Subscription | undefined;
  private managedOpening: Promise<void> | undefined;

  constructor(options: McpClientOptions = {}) {
    this.options = checkClientOptions(options);
    this.label = options.name ? `server "${options.name}"` : 'server';
    this.validate = options.validateResults ?? true;
    this.capabilities = capabilitiesFor(options.handlers, options.capabilities);
    this.logLevel = options.logLevel;
  }

  get isConnected(): boolean {
    return this.server !== undefined && this.peer !== undefined && !this.peer.isClosed;
  }

  /** `legacy` (an `initialize` handshake) or `modern` (2026-07-28, stateless). */
  get era(): 'legacy' | 'modern' | undefined {
    return this.server?.era;
  }

  /** The protocol version in use with the server. */
  get protocolVersion(): string | undefined {
    return this.server?.version;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    const s = this.server;
    return s?.era === 'legacy' ? s.init.capabilities : s?.discover.capabilities;
  }

  get serverInfo(): Implementation | undefined {
    const s = this.server;
    if (s?.era === 'legacy') return s.init.serverInfo;
    if (!s) return undefined;
    const d = s.discover as DiscoverResult & { serverInfo?: Implementation };
    return (d._meta?.[MetaKey.ServerInfo] as Implementation | undefined) ?? d.serverInfo;
  }

  get instructions(): string | undefined {
    const s = this.server;
    return s?.era === 'legacy' ? s.init.instructions : s?.discover.instructions;
  }

  /** What the server said to `server/discover` (2026-07-28), including `supportedVersions`. */
  get discoverResult(): DiscoverResult | undefined {
    return this.server?.era === 'modern' ? this.server.discover : undefined;
  }

  /** Starts the transport and settles era and version with the server. */
  async connect(
    transport: Transport,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<void> {
    if (this.peer)
      throw new McpkitError(ErrorCode.Protocol, `${this.label}: connect() was already called`);
    const peer = new JsonRpcPeer(transport, {
      label: this.label,
      defaultTimeoutMs: this.options.requestTimeoutMs ?? clientDefaults.requestTimeoutMs,
    });
    this.peer = peer;
    peer.onerror = (error) => this.onerror?.(error);
    peer.onclose = (cause) => {
      for (const ack of this.acks.values())
        ack.reject(new ConnectionClosedError(`${this.label}: the connection closed`));
      this.acks.clear();
      this.onclose?.(cause);
    };
    peer.fallbackNotificationHandler = (n) => this.onnotification?.(n);
    peer.setRequestHandler(ServerMethod.Ping, () => ({}));
    registerClientHandlers(peer, this.options.handlers, this.label);
    this.registerNotifications(peer);
    transport.setMessageHeaders?.(this.paramHeaders);

    try {
      await peer.start();
      await this.negotiate(peer, options);
    } catch (error) {
      await peer.close().catch(() => {});
      throw error;
    }
    if (this.server?.era === 'modern' && this.wantsManagedListen()) {
      this.relisten().catch((error: unknown) => this.onerror?.(error as Error));
    }
  }

  private registerNotifications(peer: JsonRpcPeer): void {
    const o = this.options;
    if (o.onlog)
      peer.setNotificationHandler(Notification.Message, (p: LoggingMessageParams) => o.onlog!(p));
    if (o.onelicitationcomplete) {
      peer.setNotificationHandler(
        Notification.ElicitationComplete,
        (p: { elicitationId: string }) => o.onelicitationcomplete!(p.elicitationId),
      );
    }
    if (o.onresourceupdated) {
      peer.setNotificationHandler(Notification.ResourceUpdated, (p: { uri: string }) =>
        o.onresourceupdated!(p.uri),
      );
    }
    if (o.ontaskstatus) {
      peer.setNotificationHandler(Notification.TaskStatus, (p: Task) => o.ontaskstatus!(p));
    }
    peer.setNotificationHandler(
      Notification.SubscriptionsAcknowledged,
      (p: { _meta?: Record<string, unknown>; notifications?: SubscriptionFilter }) => {
        const id = p?._meta?.[MetaKey.SubscriptionId] as JsonRpcId | undefined;
        const ack = id === undefined ? undefined : this.acks.get(id);
        if (!ack) return;
        this.acks.delete(id!);
        ack.resolve(p.notifications ?? {});
      },
    );
    const timers = new Map<string, ReturnType<typeof setTimeout>>();
    for (const [method, list] of Object.entries(LIST_CHANGED)) {
      peer.setNotificationHandler(method, (params?: Record<string, unknown>) => {
        this.lists.invalidate(list);
        if (!o.onlistchanged) {
          // No dedicated handler: the host hears of it as of any other notification.
          this.onnotification?.(
            params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params },
          );
          return;
        }
        // Servers often send bursts; the host hears once.
        clearTimeout(timers.get(list));
        timers.set(
          list,
          setTimeout(() => {
            timers.delete(list);
            o.onlistchanged!(list);
          }, 50),
        );
      });
    }
  }

  // ---- era and version ----------------------------------------------------------------

  private versions(): readonly string[] {
    if (this.options.protocolVersion) return [this.options.protocolVersion];
    return this.options.supportedVersions ?? PROTOCOL_VERSIONS;
  }

  private eraCache(): Map<string, EraRecord> | undefined {
    return this.options.eraCache === false ? undefined : (this.options.eraCache ?? sharedEraCache);
  }

  private async negotiate(
    peer: JsonRpcPeer,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<void> {
    const pinned = this.options.protocolVersion;
    let era =
      this.options.era ?? (pinned ? (isModernVersion(pinned) ? 'modern' : 'legacy') : 'auto');
    const ours = this.versions();
    if (!ours.some(isModernVersion)) era = 'legacy';
    if (peer.transport.capabilities?.legacyOnly) {
      if (era === 'modern') {
        throw new McpkitError(
          ErrorCode.UnsupportedProtocolVersion,
          `${this.label}: ${peer.transport.description ?? 'this transport'} carries only handshake-era revisions; 2026-07-28 needs stdio or Streamable HTTP`,
        );
      }
      era = 'legacy';
    }
    const key = peer.transport.eraKey;
    const cache = key === undefined ? undefined : this.eraCache();
    const cached = key === undefined ? undefined : cache?.get(key);

    let legacyVersion: string | undefined;
    if (era !== 'legacy' && cached?.era !== 'legacy') {
      const outcome = await this.discover(peer, options, era === 'modern', cached?.version);
      if (outcome.discover) return this.adoptModern(peer, outcome, key, cache);
      legacyVersion = outcome.legacyVersion;
    }
    try {
      await this.handshake(peer, options, legacyVersion ?? cached?.version);
    } catch (error) {
      // The cached "legacy" no longer holds (the server was upgraded): probe afresh.
      if (cached?.era === 'legacy' && era === 'auto' && isModernError(error)) {
        cache?.delete(key!);
        const outcome = await this.discover(peer, options, true, undefined);
        if (outcome.discover) return this.adoptModern(peer, outcome, key, cache);
      }
      throw error;
    }
    if (key !== undefined) cache?.set(key, { era: 'legacy', version: this.server!.version });
  }

  private adoptModern(
    peer: JsonRpcPeer,
    outcome: { discover: DiscoverResult; version: string },
    key: string | undefined,
    cache: Map<string, EraRecord> | undefined,
  ): void {
    this.server = { era: 'modern', version: outcome.version, discover: outcome.discover };
    this.setVersion(peer, outcome.version);
    if (key !== undefined) cache?.set(key, { era: 'modern', version: outcome.version });
  }

  private setVersion(peer: JsonRpcPeer, version: string): void {
    peer.transport.setProtocolVersion?.(version);
    this.meta = requestMeta(
      version,
      this.capabilities,
      this.options.clientInfo ?? clientDefaults.clientInfo,
      this.logLevel,
    );
  }

  /**
   * The 2026-07-28 probe. Resolves with the discover result and the version to speak; or
   * with no result when the server is of the handshake era (and, if it named one, the
   * legacy version it wants).
   */
  private async discover(
    peer: JsonRpcPeer,
    options: { signal?: AbortSignal; timeoutMs?: number },
    required: boolean,
    preferred: string | undefined,
  ): Promise<
    | { discover: DiscoverResult; version: string; legacyVersion?: undefined }
    | { discover?: undefined; legacyVersion: string | undefined }
  > {
    const ours = this.versions();
    const modern = ours.filter(isModernVersion).sort().reverse();
    let version = preferred && modern.includes(preferred) ? preferred : modern[0]!;
    // A server may refuse a version it also lists (the rejection says which it takes):
    // each version gets two tries at most, so that the probe always ends.
    const tries = new Map<string, number>();
    for (;;) {
      tries.set(version, (tries.get(version) ?? 0) + 1);
      const tried = new Set([...tries].filter(([, n]) => n >= 2).map(([v]) => v));
      this.setVersion(peer, version);
      let raw: unknown;
      try {
        raw = await peer.request(
          ClientMethod.Discover,
          { _meta: this.meta },
          {
            timeoutMs:
              options.timeoutMs ??
              this.options.discoverTimeoutMs ??
              clientDefaults.discoverTimeoutMs,
            ...(options.signal ? { signal: options.signal } : {}),
          },
        );
      } catch (error) {
        peer.transport.setProtocolVersion?.(undefined);
        if (options.signal?.aborted) throw error;
        if (
          RpcError.isInstance(error) &&
          error.rpcCode === McpErrorCode.UnsupportedProtocolVersion
        ) {
          const theirs = supportedOf(error);
          const pick = pickVersion(ours, theirs, tried);
          if (pick && isModernVersion(pick)) {
            version = pick;
            continue;
          }
          if (pick && !required) return { legacyVersion: pick };
          throw new UnsupportedProtocolVersionError(this.label, undefined, ours, theirs);
        }
        if (!required && meansLegacyServer(error)) return { legacyVersion: undefined };
        if (required && meansLegacyServer(error)) {
          throw new McpkitError(
            ErrorCode.UnsupportedProtocolVersion,
            `${this.label}: the server did not answer "server/discover" as a 2026-07-28 server does (${(error as Error).message}); it seems to speak only handshake-era revisions: allow them (era "auto") or connect to a newer server`,
            { cause: error },
          );
        }
        throw error;
      }
      let result: DiscoverResult;
      try {
        result = await this.check<DiscoverResult>(
          ClientMethod.Discover,
          raw,
          'DiscoverResultSchema',
        );
        if (!this.validate && !Array.isArray(result?.supportedVersions))
          throw new InvalidResultError(
            this.label,
            ClientMethod.Discover,
            'no supportedVersions',
            raw,
          );
      } catch (error) {
        // Some handshake-era servers answer any method with an empty result: not a verdict
        // of a 2026-07-28 server, so the handshake decides.
        peer.transport.setProtocolVersion?.(undefined);
        if (!required) return { legacyVersion: undefined };
        throw error;
      }
      const pick = result.supportedVersions.includes(version)
        ? version
        : pickVersion(ours, result.supportedVersions);
      if (pick === undefined)
        throw new UnsupportedProtocolVersionError(
          this.label,
          undefined,
          ours,
          result.supportedVersions,
        );
      if (!isModernVersion(pick)) {
        peer.transport.setProtocolVersion?.(undefined);
        if (required)
          throw new UnsupportedProtocolVersionError(
            this.label,
            undefined,
            modern,
            result.supportedVersions,
          );
        return { legacyVersion: pick };
      }
      return { discover: result, version: pick };
    }
  }

  /** `initialize`, version check, `notifications/initialized`. */
  private async handshake(
    peer: JsonRpcPeer,
    options: { signal?: AbortSignal; timeoutMs?: number },
    wanted?: string,
  ): Promise<void> {
    const supported: string[] = this.versions().filter((v) => isLegacyVersion(v));
    if (supported.length === 0)
      throw new UnsupportedProtocolVersionError(this.label, undefined, this.versions());
    const requested =
      wanted && supported.includes(wanted) ? wanted : [...supported].sort().reverse()[0]!;
    const raw = await peer.request(
      ClientMethod.Initialize,
      {
        protocolVersion: requested,
        capabilities: this.capabilities,
        clientInfo: this.options.clientInfo ?? clientDefaults.clientInfo,
      },
      {
        timeoutMs: options.timeoutMs ?? clientDefaults.connectTimeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
    const result = await this.check(
      ClientMethod.Initialize,
      raw,
      'InitializeResultSchema',
      fastInitializeResult,
    );
    if (!supported.includes(result.protocolVersion) || !isLegacyVersion(result.protocolVersion)) {
      throw new UnsupportedProtocolVersionError(this.label, result.protocolVersion, supported);
    }
    peer.transport.setProtocolVersion?.(result.protocolVersion);
    this.server = { era: 'legacy', version: result.protocolVersion, init: result };
    await peer.notify(Notification.Initialized);
  }

  // ---- requests -------------------------------------------------------------------------

  /**
   * Sends a request. Legacy: when the server has forgotten our session (HTTP 404), starts
   * a new session and retries once. 2026-07-28: adds the request `_meta`, answers
   * `input_required` results, and retries once on a version or header mismatch.
   */
  private request(
    method: string,
    params: Record<string, unknown> | undefined,
    options?: CallOptions,
  ): Promise<unknown> {
    let peer: JsonRpcPeer;
    try {
      peer = this.connectedPeer();
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.server!.era === 'modern')
      return this.modernRequest(peer, method, params, options, true);
    const first = peer.request(method, params, options);
    if (!peer.transport.resetSession) return first;
    return first.catch((error: unknown) => {
      if (!SessionExpiredError.isInstance(error)) throw error;
      this.renewing ??= (async () => {
        peer.transport.resetSession?.();
        await this.handshake(peer, {}, this.server?.version);
      })().finally(() => {
        this.renewing = undefined;
      });
      return this.renewing.then(() => peer.request(method, params, options));
    });
  }

  private withMeta(
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
  ): Record<string, unknown> {
    let meta = this.meta;
    const own = params?._meta as Record<string, unknown> | undefined;
    if (own || options?.logLevel) {
      meta = { ...own, ...meta };
      if (options?.logLevel) meta[MetaKey.LogLevel] = options.logLevel;
    }
    return { ...params, _meta: meta };
  }

  private modernRequest(
    peer: JsonRpcPeer,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
    mayRetry: boolean,
  ): Promise<unknown> {
    const sent = peer.request(method, this.withMeta(params, options), options);
    return sent.then(
      (raw) =>
        isInputRequired(raw) && MULTI_ROUND.has(method)
          ? this.answerInput(peer, method, params, options, raw)
          : raw,
      (error: unknown) => {
        if (!mayRetry) throw error;
        // The stream broke before the answer: 2026-07-28 asks for the same request anew
        // (a new id), once.
        if (ResponseLostError.isInstance(error) && !options?.signal?.aborted)
          return this.modernRequest(peer, method, params, options, false);
        if (!RpcError.isInstance(error)) throw error;
        return this.recover(peer, method, params, options, error);
      },
    );
  }

  /** One retry after a -32022 (another version) or a -32020 on `tools/call` (fresh schemas). */
  private async recover(
    peer: JsonRpcPeer,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
    error: RpcError,
  ): Promise<unknown> {
    if (error.rpcCode === McpErrorCode.UnsupportedProtocolVersion) {
      const current = this.server!.version;
      const pick = pickVersion(
        this.versions().filter(isModernVersion),
        supportedOf(error),
        new Set([current]),
      );
      if (!pick)
        throw new UnsupportedProtocolVersionError(
          this.label,
          undefined,
          this.versions(),
          supportedOf(error),
        );
      this.server = {
        ...(this.server as { era: 'modern'; discover: DiscoverResult }),
        version: pick,
      };
      this.setVersion(peer, pick);
      const key = peer.transport.eraKey;
      if (key !== undefined) this.eraCache()?.set(key, { era: 'modern', version: pick });
      return this.modernRequest(peer, method, params, options, false);
    }
    if (error.rpcCode === McpErrorCode.HeaderMismatch && method === ClientMethod.CallTool) {
      // The tool's schema (and so its Mcp-Param headers) may have changed: look again.
      await this.listTools({ fresh: true });
      return this.modernRequest(peer, method, params, options, false);
    }
    throw error;
  }

  /** Multi round-trip requests: fulfil `inputRequests` with the host's handlers and retry. */
  private async answerInput(
    peer: JsonRpcPeer,
    method: string,
    params: Record<string, unknown> | undefined,
    options: CallOptions | undefined,
    first: unknown,
  ): Promise<unknown> {
    const maxRounds = this.options.maxInputRounds ?? clientDefaults.maxInputRounds;
    const signal = options?.signal ?? new AbortController().signal;
    let raw = first;
    for (let round = 1; isInputRequired(raw); round++) {
      if (round > maxRounds) {
        throw new McpkitError(
          ErrorCode.Protocol,
          `${this.label}: "${method}" still asked for input after ${maxRounds} rounds; giving up (raise maxInputRounds if the server needs more)`,
        );
      }
      const retry: Record<string, unknown> = { ...params };
      if (raw.inputRequests !== undefined) {
        const responses: Record<string, unknown> = {};
        for (const [key, request] of Object.entries(raw.inputRequests)) {
          responses[key] = await answerServerRequest(
            this.options.handlers,
            request?.method,
            request?.params,
            { signal },
            this.label,
          );
        }
        retry.inputResponses = responses;
      }
      if (raw.requestState !== undefined) retry.requestState = raw.requestState;
      raw = await peer.request(method, this.withMeta(retry, options), options);
    }
    return raw;
  }

  /** Mcp-Param-* headers of a `tools/call`, from the tool's input schema (2026-07-28 HTTP). */
  private readonly paramHeaders = (message: JsonRpcMessage): Record<string, string> | undefined => {
    if (!('method' in message) || message.method !== ClientMethod.CallTool) return undefined;
    const params = message.params as CallToolParams | undefined;
    const schema = params && this.toolSchemas.get(params.name);
    if (schema === undefined) return undefined;
    try {
      return toolParamHeaders(schema, params!.arguments);
    } catch {
      return undefined;
    }
  };

  // ---- lists and their caches -----------------------------------------------------------

  /** Cached items of a list, when still fresh. */
  private cached<T>(list: string, options: CallOptions | undefined): T[] | undefined {
    if (options?.fresh || this.options.cacheLists === false) return undefined;
    return this.lists.get<T>(list);
  }

  /**
   * How long a fresh list stays valid: 2026-07-28, its `ttlMs`; legacy, until a
   * list_changed when the server promises to send one.
   */
  private remember(list: string, items: unknown[], ttlMs: number | undefined, generation: number) {
    if (this.options.cacheLists === false) return;
    let expires = 0;
    if (this.server?.era === 'modern') {
      if (typeof ttlMs === 'number' && ttlMs > 0) expires = Date.now() + ttlMs;
    } else {
      const feature = list === 'resourceTemplates' ? 'resources' : list;
      const caps = this.serverCapabilities?.[feature as 'tools'] as
        | { listChanged?: boolean }
        | undefined;
      if (caps?.listChanged === true) expires = Number.POSITIVE_INFINITY;
    }
    this.lists.set(list, items, expires, generation);
  }

  /** All tools, following `nextCursor` across pages (cached; see `cacheLists`). */
  async listTools(options?: CallOptions): Promise<Tool[]> {
    if (!this.serverOffers('tools')) return [];
    const hit = this.cached<Tool>('tools', options);
    if (hit) return hit;
    const generation = this.lists.generation('tools');
    const { items, ttlMs } = await this.listAll<'tools', Tool>(
      ClientMethod.ListTools,
      'tools',
      'ListToolsResultSchema',
      fastListToolsResult,
      options,
    );
    let tools = items;
    if (this.server?.era === 'modern') {
      // A tool whose x-mcp-header annotations are invalid cannot be called correctly.
      tools = items.filter((tool) => {
        const reason = invalidParamHeaders(tool.inputSchema);
        if (reason === undefined) return true;
        this.onerror?.(
          new McpkitError(
            ErrorCode.Protocol,
            `${this.label}: tool "${tool.name}" left out: ${reason}`,
          ),
        );
        return false;
      });
    }
    this.toolSchemas.clear();
    this.taskTools.clear();
    for (const tool of tools) {
      this.toolSchemas.set(tool.name, tool.inputSchema);
      if ((tool as { execution?: { taskSupport?: string } }).execution?.taskSupport === 'required')
        this.taskTools.add(tool.name);
    }
    this.outputSchemas.remember(tools);
    this.remember('tools', tools, ttlMs, generation);
    return tools;
  }

  async listResources(options?: CallOptions): Promise<Resource[]> {
    return this.cachedList<'resources', Resource>(
      'resources',
      ClientMethod.ListResources,
      'ListResourcesResultSchema',
      options,
    );
  }

  async listResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]> {
    return this.cachedList<'resourceTemplates', ResourceTemplate>(
      'resourceTemplates',
      ClientMethod.ListResourceTemplates,
      'ListResourceTemplatesResultSchema',
      options,
    );
  }

  async listPrompts(options?: CallOptions): Promise<Prompt[]> {
    return this.cachedList<'prompts', Prompt>(
      'prompts',
      ClientMethod.ListPrompts,
      'ListPromptsResultSchema',
      options,
    );
  }

  private async cachedList<K extends string, T>(
    key: K,
    method: string,
    schemaName: SchemaName,
    options: CallOptions | undefined,
  ): Promise<T[]> {
    const feature = key === 'resourceTemplates' ? 'resources' : (key as 'resources' | 'prompts');
    if (!this.serverOffers(feature)) return [];
    const hit = this.cached<T>(key, options);
    if (hit) return hit;
    const generation = this.lists.generation(key);
    // A template list changes with the resource list.
    const { items, ttlMs } = await this.listAll<K, T>(method, key, schemaName, undefined, options);
    this.remember(key, items, ttlMs, generation);
    return items;
  }

  private async listAll<K extends string, T>(
    method: string,
    key: K,
    schemaName: SchemaName,
    fast: ((raw: unknown) => Paged<K, T> | undefined) | undefined,
    options?: CallOptions,
  ): Promise<{ items: T[]; ttlMs: number | undefined }> {
    const maxPages = this.options.maxPages ?? clientDefaults.maxPages;
    const items: T[] = [];
    const seen = new Set<string>();
    let ttlMs: number | undefined;
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const result = (await this.requestChecked(
        method,
        cursor === undefined ? undefined : { cursor },
        schemaName,
        fast,
        options,
      )) as Paged<K, T>;
      items.push(...result[key]);
      // The whole list is as fresh as its stalest page.
      if (typeof result.ttlMs === 'number')
        ttlMs = ttlMs === undefined ? result.ttlMs : Math.min(ttlMs, result.ttlMs);
      else if (page > 0) ttlMs = 0;
      cursor = result.nextCursor;
      if (cursor === undefined) return { items, ttlMs };
      if (seen.has(cursor)) {
        throw new McpkitError(
          ErrorCode.Protocol,
          `${this.label}: "${method}" returned cursor ${JSON.stringify(cursor)} twice; stopping to avoid an endless loop`,
        );
      }
      seen.add(cursor);
    }
    throw new McpkitError(
      ErrorCode.Protocol,
      `${this.label}: "${method}" has more than ${maxPages} pages; raise maxPages to fetch them all`,
    );
  }

  // ---- tools, resources, prompts ---------------------------------------------------------

  callTool(params: CallToolParams, options?: CallOptions): Promise<CallToolResult> {
    // A tool that runs only as a task (2025-11-25) is called as one and awaited.
    if (this.taskTools.size > 0 && this.taskTools.has(params.name) && this.serverRunsToolTasks())
      return this.callToolAsTask(params, {}, options).then((task) =>
        this.waitForTask(task.taskId, options),
      );
    // The hot path: one promise layer, and no schema copy for a plain result.
    const sent = this.request(
      ClientMethod.CallTool,
      params as unknown as Record<string, unknown>,
      options,
    ).then(this.toToolResult, mapRpcError);
    // Only tools that declared an output schema pay for its check.
    if (this.options.validateOutputSchemas === false || !this.outputSchemas.has(params.name))
      return sent;
    return sent.then((result) => this.outputSchemas.check(this.label, params.name, result));
  }

  private readonly toToolResult = (raw: unknown): CallToolResult | Promise<CallToolResult> =>
    (this.validate ? fastCallToolResult(raw) : (raw as CallToolResult)) ??
    this.check(ClientMethod.CallTool, raw, 'CallToolResultSchema');

  async readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.requestChecked(
      ClientMethod.ReadResource,
      { uri },
      'ReadResourceResultSchema',
      undefined,
      options,
    );
  }

  async getPrompt(
    name: string,
    args?: Record<string, string>,
    options?: CallOptions,
  ): Promise<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.requestChecked(
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
    return this.requestChecked(
      ClientMethod.Complete,
      params,
      'CompleteResultSchema',
      undefined,
      options,
    ) as Promise<CompleteResult>;
  }

  // ---- subscriptions, logging, liveness -------------------------------------------------

  /**
   * Hear of changes to a resource through `onresourceupdated`. Legacy: `resources/subscribe`.
   * 2026-07-28: the client's own `subscriptions/listen` stream, reopened with the URI added.
   */
  async subscribeResource(uri: string, options?: CallOptions): Promise<void> {
    if (this.connectedEra() === 'modern') {
      this.resourceSubscriptions.add(uri);
      await this.relisten();
      return;
    }
    await this.requestChecked(
      ClientMethod.Subscribe,
      { uri },
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  async unsubscribeResource(uri: string, options?: CallOptions): Promise<void> {
    if (this.connectedEra() === 'modern') {
      if (this.resourceSubscriptions.delete(uri)) await this.relisten();
      return;
    }
    await this.requestChecked(
      ClientMethod.Unsubscribe,
      { uri },
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  /**
   * The least severe level the server should log at. Legacy: `logging/setLevel`.
   * 2026-07-28: sent with every later request (the revision has no session to set it on).
   */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    if (this.connectedEra() === 'modern') {
      this.logLevel = level;
      this.setVersion(this.peer!, this.server!.version);
      return;
    }
    await this.requestChecked(
      ClientMethod.SetLevel,
      { level },
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28) and resolves once the server
   * acknowledged it. Its notifications reach `onlistchanged`, `onresourceupdated` and
   * `onnotification` as usual.
   */
  async listen(
    filter: SubscriptionFilter,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<Subscription> {
    const peer = this.connectedPeer();
    if (this.server!.era !== 'modern') {
      throw new McpkitError(
        ErrorCode.Protocol,
        `${this.label}: subscriptions/listen is a 2026-07-28 request; this server speaks ${this.server!.version}: use subscribeResource() and onlistchanged instead`,
      );
    }
    const controller = new AbortController();
    const outer = options.signal;
    const onOuterAbort = () => controller.abort(outer!.reason);
    if (outer?.aborted) throw outer.reason;
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    let id: JsonRpcId | undefined;
    let closing = false;
    let ended!: Promise<void>;
    const acknowledged = new Promise<SubscriptionFilter>((resolve, reject) => {
      const done = peer.request(
        ClientMethod.SubscriptionsListen,
        this.withMeta({ notifications: filter }, undefined),
        {
          timeoutMs: 0,
          signal: controller.signal,
          onid: (requestId) => {
            id = requestId;
            this.acks.set(requestId, { resolve, reject });
          },
        },
      );
      ended = done.then(
        () => undefined,
        (error: unknown) => {
          if (closing) return undefined;
          throw error;
        },
      );
      // Before the acknowledgement, an end of any kind fails listen().
      done.then(
        () =>
          reject(
            new McpkitError(
              ErrorCode.Protocol,
              `${this.label}: the subscription ended before the server acknowledged it`,
            ),
          ),
        (error: unknown) => reject(error),
      );
    });
    const timeoutMs =
      options.timeoutMs ?? this.options.requestTimeoutMs ?? clientDefaults.requestTimeoutMs;
    const timer = setTimeout(
      () =>
        controller.abort(
          new McpkitError(
            ErrorCode.Timeout,
            `${this.label}: no acknowledgement of subscriptions/listen within ${timeoutMs} ms`,
          ),
        ),
      timeoutMs,
    );
    let notifications: SubscriptionFilter;
    try {
      notifications = await acknowledged;
    } catch (error) {
      if (id !== undefined) this.acks.delete(id);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    const closed = ended.finally(() => outer?.removeEventListener('abort', onOuterAbort));
    closed.catch(() => {}); // observed through `closed` by whoever cares
    return {
      id: id!,
      notifications,
      closed,
      close: async () => {
        closing = true;
        controller.abort(new McpkitError(ErrorCode.Aborted, 'subscription closed'));
        await closed.catch(() => {});
      },
    };
  }

  /** The list changes the server offers to announce, as a listen filter. */
  private listChanges(): SubscriptionFilter {
    const caps = this.serverCapabilities ?? {};
    const offers = (c: unknown) =>
      (c as { listChanged?: boolean } | undefined)?.listChanged === true;
    const filter: SubscriptionFilter = {};
    if (offers(caps.tools)) filter.toolsListChanged = true;
    if (offers(caps.prompts)) filter.promptsListChanged = true;
    if (offers(caps.resources)) filter.resourcesListChanged = true;
    return filter;
  }

  private wantsManagedListen(): boolean {
    return (
      this.resourceSubscriptions.size > 0 ||
      (this.options.onlistchanged !== undefined && Object.keys(this.listChanges()).length > 0)
    );
  }

  /** (Re)opens the client's own listen stream with the list changes and URIs it follows. */
  private async relisten(): Promise<void> {
    const previous = this.managedOpening;
    const run = (async () => {
      await previous?.catch(() => {});
      const old = this.managed;
      this.managed = undefined;
      await old?.close();
      if (!this.wantsManagedListen() || !this.isConnected) return;
      const filter = this.listChanges();
      if (this.resourceSubscriptions.size > 0)
        filter.resourceSubscriptions = [...this.resourceSubscriptions];
      const subscription = await this.listen(filter);
      this.managed = subscription;
      subscription.closed.catch((error: unknown) => {
        if (this.managed === subscription) this.onerror?.(error as Error);
      });
    })();
    this.managedOpening = run;
    await run;
  }

  /**
   * Liveness. Legacy: `ping`. 2026-07-28 removed ping; `server/discover` (which every
   * server must answer) stands in.
   */
  async ping(options?: CallOptions): Promise<void> {
    if (this.connectedEra() === 'modern') {
      await this.requestChecked(
        ClientMethod.Discover,
        undefined,
        'DiscoverResultSchema',
        undefined,
        options,
      );
      return;
    }
    await this.requestChecked(
      ClientMethod.Ping,
      undefined,
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  /** Tells the server the roots changed (legacy; 2026-07-28 asks for roots per request). */
  async notifyRootsChanged(): Promise<void> {
    if (this.connectedEra() === 'modern') return;
    await this.connectedPeer().notify(Notification.RootsListChanged);
  }

  // ---- tasks (2025-11-25) ----------------------------------------------------------------

  private serverRunsToolTasks(): boolean {
    const tasks = (
      this.serverCapabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } }
    )?.tasks;
    return tasks?.requests?.tools?.call !== undefined;
  }

  /**
   * Calls a tool as a task (2025-11-25 task augmentation): resolves with the task as soon
   * as the server accepted it. `waitForTask` gets its result.
   */
  async callToolAsTask(
    params: CallToolParams,
    task: { ttl?: number } = {},
    options?: CallOptions,
  ): Promise<Task> {
    if (!this.serverRunsToolTasks()) {
      throw new McpkitError(
        ErrorCode.Protocol,
        `${this.label}: the server does not run tool calls as tasks (no tasks.requests.tools.call capability)`,
      );
    }
    const result = await this.requestChecked<{ task: Task }>(
      ClientMethod.CallTool,
      { ...params, task } as Record<string, unknown>,
      'CreateTaskResultSchema',
      undefined,
      options,
    );
    return result.task;
  }

  async getTask(taskId: string, options?: CallOptions): Promise<Task> {
    return this.requestChecked(
      ClientMethod.GetTask,
      { taskId },
      'GetTaskResultSchema',
      undefined,
      options,
    );
  }

  /** `tasks/result`: blocks until the task ends, then its tool result. */
  async getTaskResult(taskId: string, options?: CallOptions): Promise<CallToolResult> {
    const raw = await this.request(ClientMethod.GetTaskResult, { taskId }, options).catch(
      mapRpcError,
    );
    return this.toToolResult(raw);
  }

  async cancelTask(taskId: string, options?: CallOptions): Promise<Task> {
    return this.requestChecked(
      ClientMethod.CancelTask,
      { taskId },
      'GetTaskResultSchema',
      undefined,
      options,
    );
  }

  async listTasks(options?: CallOptions): Promise<Task[]> {
    const { items } = await this.listAll<'tasks', Task>(
      ClientMethod.ListTasks,
      'tasks',
      'ListTasksResultSchema',
      undefined,
      options,
    );
    return items;
  }

  /**
   * Polls a task with `tasks/get` at the server's `pollInterval` until it ends or needs
   * input, then fetches its result with `tasks/result` (which carries the server's
   * requests for input to the handlers). Aborting the signal cancels the task.
   */
  async waitForTask(
    taskId: string,
    options: CallOptions & { onstatus?: (task: Task) => void } = {},
  ): Promise<CallToolResult> {
    const { signal } = options;
    try {
      for (;;) {
        const task = await this.getTask(taskId, { ...(signal ? { signal } : {}) });
        options.onstatus?.(task);
        if (TERMINAL.has(task.status) || task.status === 'input_required') {
          return await this.getTaskResult(taskId, {
            ...(signal ? { signal } : {}),
            timeoutMs: options.timeoutMs ?? 0,
          });
        }
        await sleep(task.pollInterval ?? clientDefaults.taskPollIntervalMs, signal);
      }
    } catch (error) {
      if (signal?.aborted && this.isConnected) await this.cancelTask(taskId).catch(() => {});
      throw error;
    }
  }

  // ---- the rest --------------------------------------------------------------------------

  async close(): Promise<void> {
    const managed = this.managed;
    this.managed = undefined;
    await managed?.close();
    await this.peer?.close();
  }

  /** Sends any request; the result is checked against `schema`. */
  async call<S extends z.ZodType>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options?: CallOptions,
  ): Promise<z.output<S>> {
    const raw = await this.request(method, params, options);
    return this.parse(method, schema, raw);
  }

  /** Sends a request and checks the result: the fast validator first, else the schema. */
  private async requestChecked<T>(
    method: string,
    params: Record<string, unknown> | undefined,
    schemaName: SchemaName,
    fast: ((raw: unknown) => T | undefined) | undefined,
    options?: CallOptions,
  ): Promise<T> {
    const raw = await this.request(method, params, options).catch(mapRpcError);
    return this.check(method, raw, schemaName, fast);
  }

  private check<T>(
    method: string,
    raw: unknown,
    schemaName: SchemaName,
    fast?: (raw: unknown) => T | undefined,
  ): T | Promise<T> {
    if (!this.validate) return raw as T;
    const quick = fast?.(raw);
    if (quick !== undefined) return quick;
    return loadSchemas().then((all) => this.parse(method, all[schemaName] as z.ZodType<T>, raw));
  }

  /** List calls to a feature the server did not declare return [] without a round trip. */
  private serverOffers(feature: 'tools' | 'resources' | 'prompts'): boolean {
    this.connectedPeer();
    return this.serverCapabilities?.[feature] !== undefined;
  }

  private connectedEra(): 'legacy' | 'modern' {
    this.connectedPeer();
    return this.server!.era;
  }

  private connectedPeer(): JsonRpcPeer {
    if (!this.peer || !this.server) {
      throw new ConnectionClosedError(`${this.label}: not connected; call connect() first`);
    }
    return this.peer;
  }

  private parse<S extends z.ZodType>(method: string, schema: S, raw: unknown): z.output<S> {
    if (!this.validate) return raw as z.output<S>;
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new InvalidResultError(
      this.label,
      method,
      `${where}${issue?.message ?? 'does not match the schema'}`,
      parsed.error,
    );
  }
}

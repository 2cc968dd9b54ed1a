import {
  ConnectionClosedError,
  ErrorCode,
  type JsonRpcNotification,
  JsonRpcPeer,
  McpkitError,
  type RequestOptions,
  SessionExpiredError,
  type Transport,
} from '@mcpkit/jsonrpc';
import {
  type CallToolResult,
  type ClientCapabilities,
  ClientMethod,
  type CompleteResult,
  fastCallToolResult,
  fastInitializeResult,
  fastListToolsResult,
  type GetPromptResult,
  type Implementation,
  type InitializeResult,
  isLegacyVersion,
  LATEST_LEGACY_VERSION,
  LEGACY_VERSIONS,
  type LoggingLevel,
  type LoggingMessageParams,
  Notification,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  ServerMethod,
  type Tool,
} from '@mcpkit/protocol';
import type { z } from 'zod';

type Schemas = typeof import('@mcpkit/protocol/schemas');
type SchemaName = { [K in keyof Schemas]: Schemas[K] extends z.ZodType ? K : never }[keyof Schemas];

let schemas: Promise<Schemas> | undefined;
/** zod and the schemas load on first need: a plain result never needs them. */
function loadSchemas(): Promise<Schemas> {
  schemas ??= import('@mcpkit/protocol/schemas');
  return schemas;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An empty result (ping, setLevel, subscribe): an object whose `_meta`, if any, is an object. */
const fastEmptyResult = (v: unknown): Record<string, unknown> | undefined =>
  isRecord(v) && (v._meta === undefined || isRecord(v._meta)) ? v : undefined;

import { type ClientHandlers, capabilitiesFor, registerClientHandlers } from './client-handlers.js';
import { InvalidResultError, mapRpcError, UnsupportedProtocolVersionError } from './errors.js';
import { OutputSchemas } from './output-schema.js';

/** Defaults a host may read and override. */
export const clientDefaults = Object.freeze({
  clientInfo: Object.freeze({ name: 'mcpkit', version: '0.1.0' }) as Implementation,
  /** Pages fetched by a `list*` call before it fails (a guard against endless cursors). */
  maxPages: 100,
  requestTimeoutMs: 60_000,
  connectTimeoutMs: 60_000,
});

export interface McpClientOptions {
  clientInfo?: Implementation;
  capabilities?: ClientCapabilities;
  /** Server name for error messages (`server "github": …`). */
  name?: string;
  /** The version requested in `initialize`. Default: the latest legacy revision. */
  protocolVersion?: string;
  /** Versions accepted from the server. Default: every legacy revision. */
  supportedVersions?: readonly string[];
  requestTimeoutMs?: number;
  maxPages?: number;
  /** Check results against the protocol schemas. Default true. */
  validateResults?: boolean;
  /** Check `structuredContent` against the tool's `outputSchema` (JSON Schema 2020-12). Default true. */
  validateOutputSchemas?: boolean;
  /** Sampling, elicitation and roots: each handler given declares its capability. */
  handlers?: ClientHandlers;
  /** `notifications/message` from the server. */
  onlog?: (params: LoggingMessageParams) => void;
  /** A list changed on the server (debounced per list, 50 ms). */
  onlistchanged?: (list: 'tools' | 'prompts' | 'resources') => void;
  /** A subscribed resource changed. */
  onresourceupdated?: (uri: string) => void;
  /** The user completed a URL-mode elicitation (`notifications/elicitation/complete`). */
  onelicitationcomplete?: (elicitationId: string) => void;
}

const LIST_CHANGED: Record<string, 'tools' | 'prompts' | 'resources'> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
  onprogress?: RequestOptions['onprogress'];
}

export interface CallToolParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

type Paged<K extends string, T> = { [key in K]: T[] } & { nextCursor?: string | undefined };

/**
 * An MCP client over any transport: performs the `initialize` handshake, negotiates the
 * protocol version and offers typed calls. One client, one server connection.
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
  private initialized: InitializeResult | undefined;
  private readonly label: string;
  private readonly validate: boolean;

  constructor(options: McpClientOptions = {}) {
    this.options = options;
    this.label = options.name ? `server "${options.name}"` : 'server';
    this.validate = options.validateResults ?? true;
  }

  get isConnected(): boolean {
    return this.initialized !== undefined && this.peer !== undefined && !this.peer.isClosed;
  }

  /** The protocol version agreed with the server. */
  get protocolVersion(): string | undefined {
    return this.initialized?.protocolVersion;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.initialized?.capabilities;
  }

  get serverInfo(): Implementation | undefined {
    return this.initialized?.serverInfo;
  }

  get instructions(): string | undefined {
    return this.initialized?.instructions;
  }

  /** Starts the transport, performs the handshake and sends `notifications/initialized`. */
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
    peer.onclose = (cause) => this.onclose?.(cause);
    peer.fallbackNotificationHandler = (n) => this.onnotification?.(n);
    peer.setRequestHandler(ServerMethod.Ping, () => ({}));
    registerClientHandlers(peer, this.options.handlers);
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
    if (o.onlistchanged) {
      const timers = new Map<string, ReturnType<typeof setTimeout>>();
      for (const [method, list] of Object.entries(LIST_CHANGED)) {
        peer.setNotificationHandler(method, () => {
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

    try {
      await peer.start();
      await this.handshake(peer, options);
    } catch (error) {
      await peer.close().catch(() => {});
      throw error;
    }
  }

  /** `initialize`, version check, `notifications/initialized`. */
  private async handshake(
    peer: JsonRpcPeer,
    options: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<void> {
    const supported = this.options.supportedVersions ?? LEGACY_VERSIONS;
    const requested = this.options.protocolVersion ?? LATEST_LEGACY_VERSION;
    const raw = await peer.request(
      ClientMethod.Initialize,
      {
        protocolVersion: requested,
        capabilities: capabilitiesFor(this.options.handlers, this.options.capabilities),
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
    this.initialized = result;
    await peer.notify(Notification.Initialized);
  }

  /**
   * Sends a request. When the server has forgotten our session (HTTP 404), starts a new
   * session (a fresh handshake) and retries once, so the caller never sees it.
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
    const first = peer.request(method, params, options);
    if (!peer.transport.resetSession) return first;
    return first.catch((error: unknown) => {
      if (!SessionExpiredError.isInstance(error)) throw error;
      this.renewing ??= (async () => {
        peer.transport.resetSession?.();
        await this.handshake(peer, {});
      })().finally(() => {
        this.renewing = undefined;
      });
      return this.renewing.then(() => peer.request(method, params, options));
    });
  }

  private renewing: Promise<void> | undefined;
  private readonly outputSchemas = new OutputSchemas();

  /** `resources/subscribe`: `onresourceupdated` hears of changes. */
  async subscribeResource(uri: string, options?: CallOptions): Promise<void> {
    await this.requestChecked(
      ClientMethod.Subscribe,
      { uri },
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  async unsubscribeResource(uri: string, options?: CallOptions): Promise<void> {
    await this.requestChecked(
      ClientMethod.Unsubscribe,
      { uri },
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  /** `logging/setLevel`: the least severe level the server should send. */
  async setLoggingLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    await this.requestChecked(
      ClientMethod.SetLevel,
      { level },
      'ResultSchema',
      fastEmptyResult,
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

  /** Tells the server the roots changed (it will ask `roots/list` again). */
  notifyRootsChanged(): Promise<void> {
    return this.connectedPeer().notify(Notification.RootsListChanged);
  }

  async close(): Promise<void> {
    await this.peer?.close();
  }

  async ping(options?: CallOptions): Promise<void> {
    await this.requestChecked(
      ClientMethod.Ping,
      undefined,
      'ResultSchema',
      fastEmptyResult,
      options,
    );
  }

  /** All tools, following `nextCursor` across pages. */
  async listTools(options?: CallOptions): Promise<Tool[]> {
    if (!this.serverOffers('tools')) return [];
    const tools: Tool[] = await this.listAll<'tools', Tool>(
      ClientMethod.ListTools,
      'tools',
      'ListToolsResultSchema',
      fastListToolsResult,
      options,
    );
    this.outputSchemas.remember(tools);
    return tools;
  }

  callTool(params: CallToolParams, options?: CallOptions): Promise<CallToolResult> {
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
  async listResources(options?: CallOptions): Promise<Resource[]> {
    if (!this.serverOffers('resources')) return [];
    return this.listAll(
      ClientMethod.ListResources,
      'resources',
      'ListResourcesResultSchema',
      undefined,
      options,
    );
  }

  async listResourceTemplates(options?: CallOptions): Promise<ResourceTemplate[]> {
    if (!this.serverOffers('resources')) return [];
    return this.listAll(
      ClientMethod.ListResourceTemplates,
      'resourceTemplates',
      'ListResourceTemplatesResultSchema',
      undefined,
      options,
    );
  }

  async readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.requestChecked(
      ClientMethod.ReadResource,
      { uri },
      'ReadResourceResultSchema',
      undefined,
      options,
    );
  }

  async listPrompts(options?: CallOptions): Promise<Prompt[]> {
    if (!this.serverOffers('prompts')) return [];
    return this.listAll(
      ClientMethod.ListPrompts,
      'prompts',
      'ListPromptsResultSchema',
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

  private async listAll<K extends string, T>(
    method: string,
    key: K,
    schemaName: SchemaName,
    fast: ((raw: unknown) => Paged<K, T> | undefined) | undefined,
    options?: CallOptions,
  ): Promise<T[]> {
    const maxPages = this.options.maxPages ?? clientDefaults.maxPages;
    const items: T[] = [];
    const seen = new Set<string>();
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
      cursor = result.nextCursor;
      if (cursor === undefined) return items;
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

  private connectedPeer(): JsonRpcPeer {
    if (!this.peer || !this.initialized) {
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

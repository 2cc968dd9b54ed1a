import {
  globalInstrumentation,
  type JsonRpcPeer,
  type McpInstrumentation,
  NotConnectedError,
} from '@mcpkit/jsonrpc';
import {
  type ClientCapabilities,
  type DiscoverResult,
  type InitializeResult,
  type LoggingLevel,
  PROTOCOL_VERSIONS,
  type ServerCapabilities,
} from '@mcpkit/protocol';
import { capabilitiesFor } from './client-handlers.js';
import { mcpTransportOf } from './mcp-transport-of.js';
import { type EraRecord, requestMeta, sharedEraCache } from './modern.js';
import { clientDefaults, type McpClientOptions } from './options.js';
import { ResultChecks } from './result-checks.js';
import { withTasksExtension } from './tasks-ext.js';

/** What the client settled with the server: the era, the version and the server's answer. */
export type ServerState =
  | { era: 'legacy'; version: string; init: InitializeResult }
  | { era: 'modern'; version: string; discover: DiscoverResult };

/**
 * The state every part of a client shares: its options, the peer, and what negotiation
 * settled. The parts (negotiation, request pipeline, lists, subscriptions, tasks) take it
 * explicitly rather than reaching back into `McpClient`.
 */
export class Connection {
  /** `server "name"`, for every message. */
  readonly label: string;
  readonly capabilities: ClientCapabilities;
  readonly checks: ResultChecks;
  peer: JsonRpcPeer | undefined;
  server: ServerState | undefined;
  /** The reserved `_meta` of 2026-07-28 requests, for the version in use. */
  meta: Record<string, unknown> = {};
  logLevel: LoggingLevel | undefined;
  /** The budget `connect()` was given; a session renewal gets the same. */
  connectTimeoutMs: number = clientDefaults.connectTimeoutMs;
  /** Set only when a hook observes requests: the request path checks it once. */
  readonly instrumentation:
    | (Required<Pick<McpInstrumentation, 'clientRequest'>> &
        Pick<
          McpInstrumentation,
          'enabled' | 'clientNotification' | 'sessionStart' | 'serverRequest'
        >)
    | undefined;

  constructor(readonly options: McpClientOptions) {
    const hooks =
      options.instrumentation === false
        ? undefined
        : (options.instrumentation ?? globalInstrumentation());
    this.instrumentation = hooks?.clientRequest
      ? (hooks as Required<Pick<McpInstrumentation, 'clientRequest'>> &
          Pick<
            McpInstrumentation,
            'enabled' | 'clientNotification' | 'sessionStart' | 'serverRequest'
          >)
      : undefined;
    this.label = options.name ? `server "${options.name}"` : 'server';
    this.checks = new ResultChecks(this.label, options.validateResults ?? true);
    const capabilities = capabilitiesFor(options.handlers, options.capabilities);
    // The `tasks` option declares the tasks extension on every request (listen streams too).
    this.capabilities = options.tasks ? withTasksExtension(capabilities) : capabilities;
    this.logLevel = options.logLevel;
  }

  get isConnected(): boolean {
    return this.server !== undefined && this.peer !== undefined && !this.peer.isClosed;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    const s = this.server;
    return s?.era === 'legacy' ? s.init.capabilities : s?.discover.capabilities;
  }

  connectedPeer(): JsonRpcPeer {
    if (!this.peer || !this.server) {
      throw new NotConnectedError(`${this.label}: not connected; call connect() first`);
    }
    return this.peer;
  }

  connectedEra(): 'legacy' | 'modern' {
    this.connectedPeer();
    return this.server!.era;
  }

  /** List calls to a feature the server did not declare return [] without a round trip. */
  serverOffers(feature: 'tools' | 'resources' | 'prompts'): boolean {
    this.connectedPeer();
    return this.serverCapabilities?.[feature] !== undefined;
  }

  /** The versions this client may speak. */
  versions(): readonly string[] {
    if (this.options.protocolVersion) return [this.options.protocolVersion];
    return this.options.supportedVersions ?? PROTOCOL_VERSIONS;
  }

  eraCache(): Map<string, EraRecord> | undefined {
    return this.options.eraCache === false ? undefined : (this.options.eraCache ?? sharedEraCache);
  }

  /** Speak `version` from now on: the transport's header and the 2026-07-28 request `_meta`. */
  setVersion(peer: JsonRpcPeer, version: string): void {
    mcpTransportOf(peer).setProtocolVersion?.(version);
    this.meta = requestMeta(
      version,
      this.capabilities,
      this.options.clientInfo ?? clientDefaults.clientInfo,
      this.logLevel,
    );
  }
}

import { homedir } from 'node:os';
import { InvalidToolError, McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import { JsonTooDeepError } from '@mcpkit/jsonrpc';
import type { ClientCapabilities } from '@mcpkit/protocol';
import { MCP_APP_MIME_TYPE, UI_EXTENSION_ID } from './apps.js';
import type { ManagerAuthOptions } from './auth-wiring.js';
import type { CrashLoopPolicy, ReconnectPolicy } from './backoff.js';
import type { Catalog } from './catalog.js';
import { initialState } from './classify.js';
import type { Clock } from './clock.js';
import { ServerConnection } from './connection.js';
import type { Emitter } from './emitter.js';
import type { ResolvedHints } from './hints.js';
import type { ManagerLimits } from './limits.js';
import type { ManagerHandlers, McpManagerOptions } from './options.js';
import type { Pool } from './pool.js';
import { RateLimit } from './rate-limit.js';
import type { ManagerEvents, ServerState } from './state.js';
import {
  assertEnabled,
  createTransport,
  isLocal,
  type TransportContext,
} from './transport-factory.js';

/** What the factory needs from its manager. */
export interface FactoryHost {
  readonly options: McpManagerOptions;
  readonly clock: Clock;
  readonly limits: ManagerLimits;
  readonly reconnect: ReconnectPolicy;
  readonly crashLoop: CrashLoopPolicy;
  /** Shared and filled in here (the token store), so a sign-in is seen by the next connect. */
  readonly auth: ManagerAuthOptions;
  readonly hints: ResolvedHints;
  readonly events: Emitter<ManagerEvents>;
  readonly catalog: Catalog;
  readonly pools: { local: Pool; remote: Pool };
  readonly hostDisabled: ReadonlySet<string>;
  current(name: string): ServerConnection | undefined;
  publish(connection: ServerConnection, state: ServerState, reason: string): void;
}

/**
 * How a configured server becomes a supervised connection: its transport (behind the
 * enabled-status gate), its client with the host's handlers, and the hooks that feed the
 * manager's events.
 */
export class ConnectionFactory {
  private readonly warnings: RateLimit;

  constructor(private readonly host: FactoryHost) {
    this.warnings = new RateLimit(host.clock);
  }

  handlersFor(name: string): ManagerHandlers | undefined {
    const h = this.host.options.handlers;
    return typeof h === 'function' ? h(name) : h;
  }

  /** A token store for remote servers, made on first need (loads `@mcpkit/auth` lazily). */
  async ensureStore(): Promise<void> {
    const auth = this.host.auth;
    if (auth.store) return;
    const { MemoryTokenStore } = await import('@mcpkit/auth');
    auth.store ??= new MemoryTokenStore();
  }

  create(server: ResolvedServer): ServerConnection {
    const host = this.host;
    const initial = initialState(
      server,
      host.hostDisabled.has(server.name),
      host.reconnect,
      host.hints,
    );
    return new ServerConnection(
      server,
      {
        clock: host.clock,
        limits: host.limits,
        reconnect: host.reconnect,
        crashLoop: host.crashLoop,
        hints: host.hints,
        makeTransport: async (s) => {
          assertEnabled(s);
          if (!isLocal(s)) await this.ensureStore();
          const factory = host.options.transportFactory ?? createTransport;
          return factory(s, this.transportContext(s.name));
        },
        makeClient: (s) => this.makeClient(s),
        inPool: (s, task) => (isLocal(s) ? host.pools.local : host.pools.remote).run(task),
        publish: (c, state, reason) => host.publish(c, state, reason),
      },
      initial,
    );
  }

  private transportContext(name: string): TransportContext {
    const { options, auth, events } = this.host;
    return {
      env: options.env ?? process.env,
      cwd: options.cwd ?? process.cwd(),
      home: options.home ?? homedir(),
      auth,
      inProcess: options.inProcess ?? {},
      httpFallback: options.httpFallback ?? true,
      onstderr: (text) => events.emit('stderr', { server: name, text }),
      onwarning: (error) => this.warn(name, error),
      onstreamlost: (reason) => this.host.current(name)?.noteStreamLost(reason),
    };
  }

  /** Transport warnings, at most 20 a minute per server (then one note that more were dropped). */
  private warn(server: string, error: Error): void {
    const events = this.host.events;
    const verdict = this.warnings.allow(server);
    if (verdict === 'pass') events.emit('warning', { server, error });
    else if (verdict === 'first-dropped')
      events.emit('warning', {
        server,
        error: new Error(
          `server "${server}": more warnings than 20 a minute; further ones are dropped until the minute is over (the last: ${error.message})`,
        ),
      });
  }

  private makeClient(server: ResolvedServer): McpClient {
    const { options, events, catalog } = this.host;
    const { urlElicitation, ...handlers } = this.handlersFor(server.name) ?? {};
    const client: McpClient = new McpClient({
      name: server.name,
      clientInfo: options.clientInfo ?? { name: 'mcpkit-manager', version: '0.1.0' },
      handlers,
      ...(options.instrumentation !== undefined
        ? { instrumentation: options.instrumentation }
        : {}),
      // A host that handles -32042 can complete URL-mode elicitations: say so; a host that
      // renders MCP Apps declares the UI extension.
      ...capabilitiesOf(urlElicitation !== undefined, options.apps),
      ...(server.config.timeout ? { requestTimeoutMs: server.config.timeout } : {}),
      ...(options.tasks ? { tasks: true } : {}),
      onlog: (params, { relatedRequestId }) =>
        events.emit(
          'log',
          relatedRequestId === undefined
            ? { server: server.name, params }
            : { server: server.name, params, relatedRequestId },
        ),
      onresourceupdated: (uri) => events.emit('resourceupdated', { server: server.name, uri }),
      onlistchanged: (list) =>
        catalog.changed(server.name, list, () => this.host.current(server.name)?.client),
      onsessionrenewed: () => this.host.current(server.name)?.sessionRenewed(client),
    });
    // A tool the client repaired or left out of the server's list: a warning naming it, and
    // part of the server's state. A notification nested too deep was dropped by the peer: no
    // request fails, so the host learns of it as a warning of this server.
    client.onerror = (error) => {
      if (InvalidToolError.isInstance(error)) {
        if (catalog.noteToolIssue(server.name, error)) this.warn(server.name, error);
      } else if (JsonTooDeepError.isInstance(error) && error.id === null) {
        this.warn(server.name, error);
      }
    };
    return client;
  }
}

function capabilitiesOf(
  urlElicitation: boolean,
  apps: McpManagerOptions['apps'],
): { capabilities?: ClientCapabilities } {
  const capabilities: ClientCapabilities = {};
  if (urlElicitation) capabilities.elicitation = { url: {} };
  if (apps) {
    const mimeTypes =
      typeof apps === 'object' && apps.mimeTypes ? [...apps.mimeTypes] : [MCP_APP_MIME_TYPE];
    capabilities.extensions = { [UI_EXTENSION_ID]: { mimeTypes } };
  }
  return Object.keys(capabilities).length > 0 ? { capabilities } : {};
}

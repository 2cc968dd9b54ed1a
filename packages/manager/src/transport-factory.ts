import { assertMayContact, type ResolvedServer } from '@mcpkit/config';
import type { Transport } from '@mcpkit/jsonrpc';
import { httpAuthFor, type ManagerAuthOptions, workingDirectoryOf } from './auth-wiring.js';
import { UnsupportedServerTypeError } from './errors.js';

/** What a transport factory is given besides the server entry. */
export interface TransportContext {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  home: string;
  auth: ManagerAuthOptions;
  /** Host-registered factories for `sdk` entries (by the entry's `name`) and in-process servers. */
  inProcess: Readonly<Record<string, () => Transport | Promise<Transport>>>;
  /** `http` entries try Streamable HTTP, then legacy HTTP+SSE on 400/404/405. Default true. */
  httpFallback: boolean;
  /** Server stderr (stdio). */
  onstderr?: (text: string) => void;
  /** Non-fatal oddities, e.g. non-JSON lines on a stdio server's stdout. */
  onwarning?: (warning: Error) => void;
  /** An HTTP transport's event stream dropped and is being re-opened (supervision counts these). */
  onstreamlost?: (reason: string) => void;
  /**
   * The largest message each transport accepts, in bytes (its `maxMessageBytes`); the
   * transports' own default when absent. A host wrapping `createTransport` sets it.
   */
  maxMessageBytes?: number;
  /**
   * The deepest nesting of arrays and objects each transport accepts in a message (its
   * `maxJsonDepth`); the transports' own default (256) when absent.
   */
  maxJsonDepth?: number;
  /**
   * When a stdio transport's messages to its server leave (`StdioTransport`'s `joinWrites`);
   * its default (`'tick'`) when absent. A gateway serving HTTP callers sets `'turn'`.
   */
  stdioJoinWrites?: 'tick' | 'turn';
}

/** Makes the transport for one resolved server entry. Replaceable through `transportFactory`. */
export type TransportFactory = (
  server: ResolvedServer,
  context: TransportContext,
) => Transport | Promise<Transport>;

/**
 * The security gate (one place for every path that starts a server): `@mcpkit/config`'s
 * `assertMayContact`, which decides on the resolved entry alone — a server pending
 * approval, rejected, blocked or disabled is refused (`ServerNotEnabledError`) before any
 * process is spawned or any byte is sent. The manager calls this before every factory,
 * the host's own included.
 */
export function assertEnabled(server: ResolvedServer): void {
  assertMayContact(server);
}

function streamHooks(context: TransportContext) {
  const lost = context.onstreamlost;
  return lost ? { onreconnect: (event: { reason: string }) => lost(event.reason) } : {};
}

/** The context's message size and depth limits, for any transport's options. */
function sizeLimit(context: TransportContext) {
  return {
    ...(context.maxMessageBytes !== undefined ? { maxMessageBytes: context.maxMessageBytes } : {}),
    ...(context.maxJsonDepth !== undefined ? { maxJsonDepth: context.maxJsonDepth } : {}),
  };
}

/** Whether a server counts against the local pool (stdio, in-process) or the remote one. */
export function isLocal(server: ResolvedServer): boolean {
  const type = server.config.type ?? 'stdio';
  return type === 'stdio' || type === 'sdk';
}

/**
 * The default factory: every type `@mcpkit/config` knows. Each transport module is loaded
 * on first use, so a host that only runs stdio servers never loads undici or ws.
 */
export const createTransport: TransportFactory = async (server, context) => {
  assertEnabled(server);
  const { name, config } = server;
  switch (config.type ?? 'stdio') {
    case 'stdio': {
      const stdio = config as Extract<typeof config, { command: string }>;
      const { StdioTransport } = await import('@mcpkit/transport-stdio');
      return new StdioTransport({
        command: stdio.command,
        args: stdio.args ?? [],
        env: stdio.env ?? {},
        cwd: workingDirectoryOf(server, context.cwd),
        name,
        sourceEnv: context.env as NodeJS.ProcessEnv,
        ...(context.onstderr ? { onstderr: context.onstderr } : {}),
        ...(context.onwarning ? { onwarning: context.onwarning } : {}),
        ...(context.stdioJoinWrites ? { joinWrites: context.stdioJoinWrites } : {}),
        ...sizeLimit(context),
      });
    }
    case 'http':
    case 'streamable-http': {
      const c = config as Extract<typeof config, { type: 'http' | 'streamable-http' }>;
      const auth = await httpAuthFor(server, context.auth, context);
      const options = {
        url: c.url,
        name,
        ...(c.headers ? { headers: c.headers } : {}),
        ...(auth ? { auth } : {}),
        ...streamHooks(context),
        ...sizeLimit(context),
      };
      if (context.httpFallback && c.type === 'http') {
        const { HttpFallbackTransport } = await import('./http-fallback.js');
        return new HttpFallbackTransport(options);
      }
      const { StreamableHttpTransport } = await import('@mcpkit/transport-streamable-http');
      return new StreamableHttpTransport(options);
    }
    case 'sse': {
      const c = config as Extract<typeof config, { type: 'sse' }>;
      const auth = await httpAuthFor(server, context.auth, context);
      const { SseTransport } = await import('@mcpkit/transport-sse');
      return new SseTransport({
        url: c.url,
        name,
        ...(c.headers ? { headers: c.headers } : {}),
        ...(auth ? { auth } : {}),
        ...streamHooks(context),
        ...sizeLimit(context),
      });
    }
    case 'sse-ide': {
      const c = config as Extract<typeof config, { type: 'sse-ide' }>;
      const { SseTransport } = await import('@mcpkit/transport-sse');
      return new SseTransport({ url: c.url, name, ...streamHooks(context), ...sizeLimit(context) });
    }
    case 'ws': {
      const c = config as Extract<typeof config, { type: 'ws' }>;
      if (c.headersHelper) {
        throw new UnsupportedServerTypeError(
          name,
          'ws',
          '"headersHelper" is not supported on WebSocket servers; put static headers in "headers" or use an http server',
        );
      }
      const { WebSocketTransport } = await import('@mcpkit/transport-websocket');
      return new WebSocketTransport({
        url: c.url,
        name,
        ...(c.headers ? { headers: c.headers } : {}),
        ...sizeLimit(context),
      });
    }
    case 'ws-ide': {
      const c = config as Extract<typeof config, { type: 'ws-ide' }>;
      const { WebSocketTransport } = await import('@mcpkit/transport-websocket');
      return new WebSocketTransport({
        url: c.url,
        name,
        ...(c.authToken ? { authToken: c.authToken } : {}),
        ...sizeLimit(context),
      });
    }
    case 'sdk': {
      const c = config as Extract<typeof config, { type: 'sdk' }>;
      const factory = context.inProcess[c.name] ?? context.inProcess[name];
      if (!factory) {
        throw new UnsupportedServerTypeError(
          name,
          'sdk',
          `no in-process server "${c.name}" is registered; pass it in the manager's "inProcess" option (${Object.keys(context.inProcess).length > 0 ? `registered: ${Object.keys(context.inProcess).join(', ')}` : 'none registered'})`,
        );
      }
      return factory();
    }
    default:
      throw new UnsupportedServerTypeError(
        name,
        String(config.type),
        'this version of @mcpkit/manager has no transport for it; pass a transportFactory that handles it',
      );
  }
};

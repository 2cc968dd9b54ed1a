import {
  defaultAuthDir,
  FileTokenStore,
  HeadersHelperAuth,
  type LoopbackAuthorization,
  OAuthProvider,
} from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import type { HttpAuth, Transport } from '@mcpkit/jsonrpc';
import { SseTransport } from '@mcpkit/transport-sse';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { WebSocketTransport } from '@mcpkit/transport-websocket';
import { assertMayContact } from './gate.js';
import { checkTimeoutMs } from './numbers.js';
import { type CliContext, workingDirectory } from './servers.js';
import type { Closable, Shutdown } from './signals.js';

export interface Connected {
  name: string;
  client: McpClient;
  /** Closes the connection (process tree included) and stops tracking it for signals. */
  close(): Promise<void>;
}

export interface ConnectFailure {
  name: string;
  error: Error;
}

export interface ConnectOptions {
  timeoutMs: number;
  /** Server stderr goes here (prefixed with the server's name) when set. */
  stderr?: (name: string, text: string) => void;
  /** Tracks every transport, so that a signal closes it; its signal cancels the connect. */
  shutdown?: Shutdown;
}

/** How a signal closes a transport, and for stdio how a second Ctrl-C kills its tree. */
function closableFor(transport: Transport): Closable {
  return {
    close: () => transport.close(),
    kill: () => {
      if (!(transport instanceof StdioTransport)) return;
      transport.killNow();
      // killNow() skips a server whose own process is gone; what it started may still
      // run in its process group (the transport made it the group leader).
      const pid = transport.pid;
      if (pid !== undefined && process.platform !== 'win32') {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // The group is empty.
        }
      }
    },
  };
}

/** Connects to enabled servers at once; one server failing never stops the others. */
export async function connectServers(
  servers: readonly ResolvedServer[],
  ctx: CliContext,
  options: ConnectOptions,
): Promise<{ connected: Connected[]; failed: ConnectFailure[] }> {
  const results = await Promise.all(
    servers.map(async (server): Promise<Connected | ConnectFailure> => {
      const { name, config } = server;
      let transport: Transport;
      let requestTimeoutMs: number;
      let untrack: () => void;
      try {
        requestTimeoutMs =
          config.timeout === undefined
            ? options.timeoutMs
            : checkTimeoutMs(config.timeout, `server "${name}": "timeout"`);
        transport = transportFor(server, ctx, options);
        untrack = options.shutdown?.track(closableFor(transport)) ?? (() => {});
      } catch (error) {
        return { name, error: error as Error };
      }
      const client = new McpClient({
        name,
        clientInfo: { name: 'mcpkit-cli', version: '0.1.0' },
        requestTimeoutMs,
      });
      const signal = options.shutdown?.signal;
      try {
        await client.connect(transport, {
          timeoutMs: options.timeoutMs,
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        await transport.close().catch(() => {});
        untrack();
        return { name, error: error as Error };
      }
      const close = async () => {
        await client.close().catch(() => {});
        await transport.close().catch(() => {});
        untrack();
      };
      return { name, client, close };
    }),
  );
  return {
    connected: results.filter((r): r is Connected => 'client' in r),
    failed: results.filter((r): r is ConnectFailure => 'error' in r),
  };
}

/** Where the CLI keeps tokens: `$XDG_DATA_HOME/mcpkit/auth` (files 0600). */
export function tokenStore(ctx: CliContext): FileTokenStore {
  return new FileTokenStore(defaultAuthDir(ctx.env as NodeJS.ProcessEnv, ctx.home));
}

type RemoteConfig = Extract<ResolvedServer['config'], { type: 'http' | 'streamable-http' | 'sse' }>;

/**
 * The OAuth provider for a remote entry. Interactive only for `mcpkit login`: elsewhere a
 * server that needs a sign-in fails with a message that says to run it.
 */
export function oauthFor(
  server: ResolvedServer,
  ctx: CliContext,
  interactive?: LoopbackAuthorization,
): OAuthProvider {
  assertMayContact(server);
  const config = server.config as RemoteConfig;
  const oauth = config.oauth;
  if (oauth?.xaa) {
    throw new Error(
      `server "${server.name}": enterprise-managed authorization ("xaa") needs identity-provider settings, which this version of the CLI does not take yet; use @mcpkit/auth's EnterpriseAuthProvider`,
    );
  }
  return new OAuthProvider({
    serverUrl: config.url,
    serverName: server.name,
    store: tokenStore(ctx),
    clientMetadata: { client_name: 'mcpkit CLI' },
    ...(oauth?.clientId ? { client: { clientId: oauth.clientId } } : {}),
    ...(oauth?.scopes ? { scopes: oauth.scopes } : {}),
    ...(oauth?.authServerMetadataUrl
      ? { authorizationServerMetadataUrl: oauth.authServerMetadataUrl }
      : {}),
    ...(interactive ? { interactive } : {}),
  });
}

/**
 * How a remote entry authenticates: its `headersHelper` (run through the shell, scrubbed
 * environment for project files), else OAuth with the tokens `mcpkit login` stored, unless
 * the entry sets its own Authorization header.
 */
function authFor(server: ResolvedServer, ctx: CliContext): HttpAuth | undefined {
  const config = server.config as RemoteConfig;
  if (config.headersHelper) {
    return new HeadersHelperAuth({
      command: config.headersHelper,
      serverName: server.name,
      serverUrl: config.url,
      scrubEnvironment: server.scope === 'project',
      cwd: workingDirectory(server, ctx),
      env: ctx.env as NodeJS.ProcessEnv,
      ...(config.headers ? { headers: config.headers } : {}),
    });
  }
  if (Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    return undefined;
  return oauthFor(server, ctx);
}

/** The transport a resolved server entry asks for; refused for a server not `enabled`. */
function transportFor(server: ResolvedServer, ctx: CliContext, options: ConnectOptions): Transport {
  assertMayContact(server);
  const { name, config } = server;
  switch (config.type) {
    case 'stdio':
      return new StdioTransport({
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: workingDirectory(server, ctx),
        name,
        sourceEnv: ctx.env as NodeJS.ProcessEnv,
        ...(options.stderr ? { onstderr: (text: string) => options.stderr!(name, text) } : {}),
      });
    case 'http':
    case 'streamable-http': {
      const auth = authFor(server, ctx);
      return new StreamableHttpTransport({
        url: config.url,
        name,
        ...(config.headers ? { headers: config.headers } : {}),
        ...(auth ? { auth } : {}),
      });
    }
    case 'sse': {
      const auth = authFor(server, ctx);
      return new SseTransport({
        url: config.url,
        name,
        ...(config.headers ? { headers: config.headers } : {}),
        ...(auth ? { auth } : {}),
      });
    }
    case 'ws':
      if (config.headersHelper) {
        throw new Error(
          `server "${name}": "headersHelper" on a WebSocket server is not supported by this version of the CLI yet`,
        );
      }
      return new WebSocketTransport({
        url: config.url,
        name,
        ...(config.headers ? { headers: config.headers } : {}),
      });
    default:
      throw new Error(
        `server "${name}": type "${config.type}" is not supported by this version of the CLI yet`,
      );
  }
}

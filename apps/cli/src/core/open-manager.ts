import type { AuthRecord, TokenStore } from '@mcpkit/auth';
import type { ResolvedServer } from '@mcpkit/config';
import type { Transport } from '@mcpkit/jsonrpc';
import {
  createTransport,
  type ManagerHandlers,
  McpManager,
  type McpManagerOptions,
  managerDefaults,
} from '@mcpkit/manager';
import { CLI_HINTS } from './advice.js';
import { checkTimeoutMs } from './flags.js';
import { identityProviderOf } from './identity-provider.js';
import type { CliContext } from './server-selection.js';
import type { Closable, Shutdown } from './signals.js';
import { type TraceFile, traceTransport } from './trace.js';
import { VERSION } from './usage.js';

export interface OpenManagerOptions {
  /**
   * `--timeout`: the connect budget of each server and the default per-request timeout
   * (the manager's default when absent: `serve` gives its `--timeout` to its clients' calls).
   */
  timeoutMs?: number;
  /** `--max-message-bytes`: every transport's `maxMessageBytes` (their default when absent). */
  maxMessageBytes?: number;
  /** Every stdio transport's `joinWrites` (`serve --http`: `'turn'`); their default when absent. */
  stdioJoinWrites?: 'tick' | 'turn';
  /**
   * Tracks every transport, so that a signal closes it (and a second one kills its tree),
   * and closes the manager on the first signal. Without it (`serve`, which closes its
   * manager itself) nothing is tracked.
   */
  shutdown?: Shutdown;
  /**
   * The names servers see: `clientInfo.name` and the OAuth `client_name` it registers
   * (`mcpkit-cli` and `mcpkit CLI` by default).
   */
  names?: { client: string; oauth: string };
  /** The manager's hints in the CLI's words (the default), or `false`: the manager's own. */
  hints?: false;
  /** Signs in when a server asks for it (`serve`: when a client calls `authenticate`). */
  interactiveAuth?: NonNullable<McpManagerOptions['auth']>['interactive'];
  /** The entry a transport is made for (`serve` marks its stdio children's env). */
  prepare?: (server: ResolvedServer) => ResolvedServer;
  /** Server stderr, a chunk at a time (only with `-v`). */
  onstderr?: (server: string, text: string) => void;
  /** Warnings: garbage stdout lines, failed list fetches (only with `-v`). */
  onwarning?: (server: string, error: Error) => void;
  /** `--trace`: every message in both directions. */
  trace?: TraceFile;
  handlers?: ManagerHandlers | ((server: string) => ManagerHandlers | undefined);
  /**
   * The manager outlives one command (the shell): a failed list is asked again after the
   * manager's retry window, not once for the session's whole life.
   */
  longLived?: boolean;
  /** The lists the manager fetches at connect (its `lists` option); all by default. */
  lists?: McpManagerOptions['lists'];
  /** MCP Apps: declare the UI extension (`mcpkit apps`). */
  apps?: McpManagerOptions['apps'];
}

/**
 * Leaves the shutdown's list once the transport has closed. (A close lets the cancellations
 * already being sent go out first: the HTTP and SSE transports wait for their notification
 * POSTs, up to their `closeFlushMs`; stdio writes what it has.)
 */
function untrackOnClose(transport: Transport, untrack: () => void): void {
  const close = transport.close.bind(transport);
  transport.close = async () => {
    try {
      await close();
    } finally {
      untrack();
    }
  };
}

/**
 * Where the CLI keeps tokens: `$XDG_DATA_HOME/mcpkit/auth` (files 0600). `@mcpkit/auth`
 * (and the JOSE library under it, some 50 modules) is loaded on the store's first use, so
 * a command that only talks to stdio servers never loads it before starting them.
 */
export function tokenStore(ctx: CliContext): TokenStore {
  let store: Promise<TokenStore> | undefined;
  const load = () =>
    (store ??= import('@mcpkit/auth').then(
      ({ FileTokenStore, defaultAuthDir }) =>
        new FileTokenStore(defaultAuthDir(ctx.env as NodeJS.ProcessEnv, ctx.home)),
    ));
  return {
    get: async (key: string) => (await load()).get(key),
    set: async (key: string, record: AuthRecord) => (await load()).set(key, record),
    delete: async (key: string) => (await load()).delete(key),
  };
}

/** How a signal closes a transport, and for stdio how a second Ctrl-C kills its tree. */
function closableFor(transport: Transport): Closable {
  return {
    close: () => transport.close(),
    kill: () => {
      // Only a stdio transport has a process tree to kill (looked up by shape, so that no
      // transport module is loaded for it).
      const stdio = transport as Partial<{ killNow(): void; pid: number | undefined }>;
      if (typeof stdio.killNow !== 'function') return;
      stdio.killNow();
      // killNow() skips a server whose own process is gone; what it started may still
      // run in its process group (the transport made it the group leader).
      const pid = stdio.pid;
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

/**
 * The CLI's one `McpManager`: the manager's transports behind the CLI's gate
 * (`assertMayContact`: nothing unapproved, rejected, blocked or disabled is contacted),
 * every transport tracked by the shutdown so that a signal closes it (and a second one
 * kills its tree), and the manager itself closed on the first signal so that nothing
 * reconnects while the process exits.
 */
export function openManager(
  servers: readonly ResolvedServer[],
  ctx: CliContext,
  options: OpenManagerOptions,
): McpManager {
  const { shutdown } = options;
  const manager = new McpManager({
    servers,
    clientInfo: { name: options.names?.client ?? 'mcpkit-cli', version: VERSION },
    env: ctx.env,
    cwd: ctx.cwd,
    home: ctx.home,
    auth: {
      store: tokenStore(ctx),
      clientName: options.names?.oauth ?? 'mcpkit CLI',
      // Read only when an entry with `oauth.xaa` connects.
      identityProvider: () => identityProviderOf(ctx),
      ...(options.interactiveAuth ? { interactive: options.interactiveAuth } : {}),
    },
    limits: {
      ...(options.timeoutMs !== undefined ? { connectTimeoutMs: options.timeoutMs } : {}),
      // One command asks each server for each list once: a list that failed is not asked
      // again by the command's later reads (2^31 ms is longer than any command; the shell
      // keeps the manager's window), and every server's lists stay cached however many
      // servers the config has.
      ...(options.longLived ? {} : { listRetryMs: 2 ** 31, listRetryMaxMs: 2 ** 31 }),
      listCacheServers: Math.max(managerDefaults.listCacheServers, servers.length),
    },
    ...(options.hints === false ? {} : { hints: CLI_HINTS }),
    ...(options.lists ? { lists: options.lists } : {}),
    ...(options.apps ? { apps: options.apps } : {}),
    ...(options.handlers ? { handlers: options.handlers } : {}),
    // The manager runs the gate (`@mcpkit/config`'s `assertMayContact`) before this factory.
    transportFactory: async (server, context) => {
      // Checked here so that a bad entry fails alone, with its name, before anything starts.
      if (server.config.timeout !== undefined)
        checkTimeoutMs(server.config.timeout, `server "${server.name}": "timeout"`);
      shutdown?.signal.throwIfAborted();
      const made = await createTransport(
        options.prepare ? options.prepare(server) : server,
        options.maxMessageBytes !== undefined || options.stdioJoinWrites !== undefined
          ? {
              ...context,
              ...(options.maxMessageBytes !== undefined
                ? { maxMessageBytes: options.maxMessageBytes }
                : {}),
              ...(options.stdioJoinWrites !== undefined
                ? { stdioJoinWrites: options.stdioJoinWrites }
                : {}),
            }
          : context,
      );
      const transport = options.trace ? traceTransport(made, server.name, options.trace) : made;
      if (shutdown) untrackOnClose(transport, shutdown.track(closableFor(transport)));
      return transport;
    },
  });
  if (options.onstderr) {
    const forward = options.onstderr;
    manager.on('stderr', ({ server, text }) => forward(server, text));
  }
  if (options.onwarning) {
    const forward = options.onwarning;
    manager.on('warning', ({ server, error }) => forward(server, error));
  }
  const onAbort = () => void manager.close().catch(() => {});
  shutdown?.signal.addEventListener('abort', onAbort, { once: true });
  return manager;
}

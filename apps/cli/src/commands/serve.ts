import { existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { LoopbackAuthorization } from '@mcpkit/auth';
import type { LoadResult, ResolvedServer } from '@mcpkit/config';
import { userConfigDir } from '@mcpkit/config/advanced';
import {
  AccessControl,
  AuditFile,
  type AuditSink,
  AuditStream,
  createGatewayEndpoints,
  type GatewayConfig,
  GatewayConfigError,
  GatewayEndpoints,
  toolFilter,
} from '@mcpkit/gateway';
import {
  AuthSecretError,
  endpointScopesOf,
  type GatewayConfigWatcher,
  type HttpListenerOptions,
  isLoopbackBind,
  listenHttp,
  loadGatewayConfig,
  oauthConfigured,
  ResourceServer,
  resourceServerOptionsFromConfig,
  StdioListener,
  watchGatewayConfig,
} from '@mcpkit/gateway/node';
import { MessageTooLargeError } from '@mcpkit/jsonrpc';
import { causeOf, errorAdvice, errorText } from '../core/advice.js';
import { parseBytesFlag, parseMsFlag } from '../core/flags.js';
import type { Io } from '../core/io.js';
import { UsageError } from '../core/io.js';
import { openManager } from '../core/open-manager.js';
import {
  checkGatewayChain,
  GATEWAY_CHAIN_VARIABLE,
  gatewayIdentity,
} from '../core/self-reference.js';
import {
  openServeStore,
  REDIS_URL_VARIABLE,
  type ServeStore,
  storeRequest,
} from '../core/serve-store.js';
import { resolveServeAuth, type ServeAuth } from '../core/serve-token.js';
import { type CliContext, nothingConfigured, notStartedHint } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import { neutralize } from '../terminal/neutralize.js';
import type { globalFlags, serveFlags, ValuesOf } from './command-table.js';

/** `mcpkit serve`'s flags, as the command table parses them (`--max-message-bytes` is global). */
export type ServeFlags = ValuesOf<typeof globalFlags & typeof serveFlags>;

export const serveDefaults = {
  /** Over stdio: how long `initialize` waits for the backends before it is answered. */
  backendWaitMs: 5_000,
} as const;

/** A millisecond flag of serve's, when given: 0 is allowed (no wait, no delay). */
function msFlag(flag: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseMsFlag(text, `--${flag}`, { min: 0 });
}

/**
 * A backend's failure as the gateway's client reads it, worded from the error's facts: an
 * answer over `--max-message-bytes` names the flag that raises it. Other errors keep their
 * own message (`undefined`).
 */
export function describeBackendError(error: unknown, server: string): string | undefined {
  const tooLarge = causeOf(error, (e): e is MessageTooLargeError =>
    MessageTooLargeError.isInstance(e),
  );
  if (!tooLarge) return undefined;
  const limit = tooLarge.limitBytes;
  return `server "${server}" sent a message over mcpkit serve's ${limit}-byte message limit, and it was dropped; start mcpkit serve with a larger --max-message-bytes <n> to accept it`;
}

/** A gateway config's problems, one line each: `file:line:column: key: what`. */
export function gatewayConfigLines(error: GatewayConfigError): string[] {
  return error.issues.map(
    (i) => `${error.file}:${i.line}:${i.column}: ${i.path ? `${i.path}: ` : ''}${i.message}`,
  );
}

/** `--gateway-config`, else `gateway.jsonc` in mcpkit's config folder when it exists. */
function gatewayConfigFile(ctx: CliContext, flag: string | undefined): string | undefined {
  if (flag !== undefined) return path.resolve(ctx.cwd, flag);
  const file = path.join(
    userConfigDir({ home: ctx.home, env: ctx.env, platform: process.platform }),
    'gateway.jsonc',
  );
  return existsSync(file) ? file : undefined;
}

/** An `--allowed-origin` value as browsers send it (`http://localhost:3000`), or undefined. */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    const bare = url.pathname === '/' && url.search === '' && url.hash === '';
    return bare && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** What serve says on stderr about its token, once it listens. */
function authLine(auth: ServeAuth, url: URL): string {
  if (auth.kind === 'none')
    return `warning: --no-auth: every local account and process can call every server at ${url.href} with your credentials`;
  if (auth.source === 'state')
    return auth.created
      ? `bearer token (new, shown once; kept 0600 in ${auth.file}, where your hosts can read it): ${auth.token}`
      : `bearer token: the one in ${auth.file}`;
  if (auth.source === 'flag')
    return 'warning: --token is visible to every local user (in /proc/<pid>/cmdline); prefer --token-file <path> or MCPKIT_SERVE_TOKEN';
  return `bearer token: from ${auth.source === 'file' ? '--token-file' : 'MCPKIT_SERVE_TOKEN'}`;
}

/** `--http [host:]port` → where to bind (loopback when no host is given). */
export function parseBind(value: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65_535)
    throw new UsageError(`--http takes [host:]port, like 8765 or 127.0.0.1:8765 (got "${value}")`);
  return { host: match[1] ?? '127.0.0.1', port };
}

/**
 * `mcpkit serve`: the user's servers, connected and supervised by the manager (the same
 * config resolution and approval gate as the other commands), served as one MCP server
 * over stdio or Streamable HTTP. Resolves with the exit code once stdin ends (stdio) or on
 * SIGINT/SIGTERM.
 */
export async function serveCommand(
  io: Io,
  ctx: CliContext,
  resolved: LoadResult,
  flags: ServeFlags,
  timeoutMs: number,
  version: string,
  shutdown?: Shutdown,
  /** stdin and stdout are a terminal: a person started it by hand. */
  interactive = false,
): Promise<number> {
  const names = resolved.servers.map((s) => s.name);
  for (const name of flags.server ?? [])
    if (!names.includes(name))
      throw new UsageError(`no server named "${name}"; "mcpkit list" shows the configured servers`);
  const chosen = flags.server?.length
    ? resolved.servers.filter((s) => flags.server!.includes(s.name))
    : resolved.servers;
  if (flags['no-prefix'] && chosen.length !== 1)
    throw new UsageError(
      `--no-prefix needs exactly one server (choose it with --server); ${chosen.length} selected`,
    );
  const separator = flags.separator ?? '__';
  if (!/^[A-Za-z0-9_-]{1,8}$/.test(separator))
    throw new UsageError('--separator must be 1 to 8 characters of [A-Za-z0-9_-]');
  const bind = flags.http === undefined ? undefined : parseBind(flags.http);
  const ssePollAfterMs = msFlag('sse-poll-ms', flags['sse-poll-ms']);
  if (ssePollAfterMs !== undefined && bind === undefined)
    throw new UsageError('--sse-poll-ms needs --http (SSE streams are HTTP only)');
  for (const flag of ['token-file', 'no-auth', 'allowed-host', 'allowed-origin'] as const)
    if (flags[flag] !== undefined && bind === undefined)
      throw new UsageError(`--${flag} needs --http`);
  const allowedOrigins = (flags['allowed-origin'] ?? []).map((value) => {
    const origin = originOf(value);
    if (origin === undefined)
      throw new UsageError(
        `--allowed-origin takes an origin, like http://localhost:3000 (got "${value}")`,
      );
    return origin;
  });
  const allowedHosts = (flags['allowed-host'] ?? []).map((value) => {
    const name = value.trim().toLowerCase();
    if (!/^(?:[a-z0-9_.-]+|\[[0-9a-f:.]+\])$/.test(name))
      throw new UsageError(
        `--allowed-host takes a host name or address without a port, like gateway.lan or 192.168.1.20 (got "${value}")`,
      );
    return name;
  });
  // Settled before any backend starts: a bind that cannot be served is refused at once.
  const auth =
    bind === undefined ? undefined : await resolveServeAuth(ctx, flags, isLoopbackBind(bind.host));
  const backendWaitMs =
    msFlag('backend-wait-ms', flags['backend-wait-ms']) ?? serveDefaults.backendWaitMs;
  const maxMessageBytes =
    flags['max-message-bytes'] === undefined
      ? undefined
      : parseBytesFlag(flags['max-message-bytes'], '--max-message-bytes');
  const configFile = gatewayConfigFile(ctx, flags['gateway-config']);
  let gatewayConfig: GatewayConfig | undefined;
  let configText: string | undefined;
  if (configFile !== undefined) {
    try {
      ({ config: gatewayConfig, text: configText } = await loadGatewayConfig(configFile, {
        servers: names,
      }));
    } catch (error) {
      if (!GatewayConfigError.isInstance(error)) {
        io.stderr(
          `mcpkit serve: the gateway config ${configFile} could not be read: ${(error as Error).message}\n`,
        );
        return 1;
      }
      for (const line of gatewayConfigLines(error)) io.stderr(`mcpkit serve: ${line}\n`);
      return 1;
    }
  }
  // The config's `auth` section: OAuth access tokens besides (or, with --no-auth, instead
  // of) the static token. Settled before any backend starts.
  let oauth: { server: ResourceServer; publicUrl: string | undefined } | undefined;
  if (oauthConfigured(gatewayConfig?.auth) && bind !== undefined) {
    try {
      const { options, publicUrl } = await resourceServerOptionsFromConfig(
        gatewayConfig.auth,
        ctx.env,
      );
      oauth = { server: new ResourceServer(options), publicUrl };
    } catch (error) {
      if (AuthSecretError.isInstance(error) || error instanceof TypeError)
        throw new UsageError(`${configFile}: auth: ${error.message}`);
      throw error;
    }
  }
  // The access section (policy, rate limits, audit, upstream identity): with a gateway config,
  // always there, so that a reloaded config can add rules.
  let access: AccessControl | undefined;
  if (configFile !== undefined) {
    const auditConfig = gatewayConfig?.access?.audit;
    let audit: AuditSink | undefined;
    if (auditConfig?.stdout) {
      if (bind === undefined) {
        io.stderr(
          `mcpkit serve: ${configFile}: access.audit.stdout: over stdio, stdout carries the MCP messages; give access.audit.file instead\n`,
        );
        return 1;
      }
      audit = new AuditStream(process.stdout);
    } else if (auditConfig?.file !== undefined) {
      const file = path.resolve(path.dirname(configFile), auditConfig.file);
      try {
        // Reported once per episode (the next failure after a write that succeeded); a
        // failed reopen is reported by the SIGHUP handler below.
        audit = new AuditFile(file, {
          onerror: (error, during) => {
            if (during === 'write')
              io.stderr(
                `mcpkit serve: the audit file ${file} cannot be written (${error.code ?? error.message}): ${auditConfig.required ? 'every call is refused until it can (access.audit.required)' : 'calls go on, and their audit lines are lost until it can'}\n`,
              );
          },
          onrecover: () => io.stderr(`mcpkit serve: the audit file ${file} is written again\n`),
        });
      } catch (error) {
        io.stderr(
          `mcpkit serve: the audit file ${file} could not be opened: ${(error as Error).message}\n`,
        );
        return 1;
      }
    }
    access = new AccessControl({ config: gatewayConfig?.access, audit });
  }
  if (flags.endpoint !== undefined) {
    const known = Object.keys(gatewayConfig?.endpoints ?? {});
    if (!known.includes(flags.endpoint))
      throw new UsageError(
        configFile === undefined
          ? '--endpoint needs a gateway config with endpoints (--gateway-config <file>)'
          : `no endpoint named "${flags.endpoint}" in ${configFile} (${known.length > 0 ? `endpoints: ${known.join(', ')}` : 'it has no endpoints'})`,
      );
  }
  // Replicas: the shared session store (its package loaded only now), settled before any backend.
  const storeWanted = storeRequest(flags, ctx.env, gatewayConfig?.store);
  if (storeWanted && bind === undefined)
    throw new UsageError(
      `${storeWanted.source === 'config' ? `${configFile}: store` : '--redis'} needs --http (replicas share HTTP sessions)`,
    );
  const shared = storeWanted && (await openServeStore(storeWanted, gatewayConfig?.store));
  if (
    shared?.source === 'flag' &&
    URL.canParse(storeWanted!.url) &&
    new URL(storeWanted!.url).password
  )
    io.stderr(
      `mcpkit serve: warning: a password in --redis is visible to every local user (in /proc/<pid>/cmdline); prefer ${REDIS_URL_VARIABLE} or the gateway config's store.redis\n`,
    );
  for (const s of chosen)
    if (s.status !== 'enabled') io.stderr(`mcpkit serve: ${notStartedHint(s)}\n`);
  // A host that starts the gateway elsewhere would otherwise get an empty tool list, silently.
  if (!chosen.some((s) => s.status === 'enabled'))
    io.stderr(`mcpkit serve: ${nothingConfigured(resolved, ctx, chosen.length > 0)}\n`);
  // An entry that runs this gateway is never given to the manager (the line above says why).
  const served = chosen.filter((s) => s.status !== 'skipped');
  // What no entry shows (`sh -c '… serve'`): the chain of gateways above this one.
  const chain = checkGatewayChain(ctx.env[GATEWAY_CHAIN_VARIABLE], gatewayIdentity(served));
  if (!chain.ok) {
    io.stderr(`mcpkit serve: not started: ${chain.reason}\n`);
    return 1;
  }
  const marked = (server: ResolvedServer): ResolvedServer => {
    if ((server.config.type ?? 'stdio') !== 'stdio') return server;
    const config = server.config as Extract<ResolvedServer['config'], { command: string }>;
    // Set over the entry's own env: a child cannot lose the marker by naming it.
    const env = { ...config.env, [GATEWAY_CHAIN_VARIABLE]: chain.next };
    return { ...server, config: { ...config, env } };
  };

  let gateway: GatewayEndpoints | undefined;
  const manager = openManager(served, ctx, {
    names: { client: 'mcpkit-serve', oauth: 'mcpkit' },
    hints: false,
    longLived: true,
    handlers: GatewayEndpoints.handlers(() => gateway),
    prepare: marked,
    ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
    // Over HTTP each caller's request arrives in an event of its own: the requests forwarded
    // to a stdio backend within one loop turn leave in one write (gateway CPU per call 0.84–0.91×
    // with 64 in flight; bench/README.md, "JoinedWriter flush timing").
    ...(bind ? { stdioJoinWrites: 'turn' as const } : {}),
    // The sign-in runs when a client calls a backend's `authenticate` tool.
    interactiveAuth: new LoopbackAuthorization({ print: (line) => io.stderr(`${line}\n`) }),
  });
  // A backend's warning, with the CLI's advice from its facts (a flag of serve's).
  manager.on('warning', ({ server, error }) =>
    io.stderr(`mcpkit serve: ${server}: ${errorText(error)}\n`),
  );
  if (flags.verbose)
    // A backend's stderr is its data: neutralized, never redacted.
    manager.on('stderr', ({ server, text }) =>
      (io.serverStderr ?? io.stderr)(`[${server}] ${text}${text.endsWith('\n') ? '' : '\n'}`),
    );
  manager.on('statechange', ({ name, state, reason }) => {
    if (state.state === 'failed' || state.state === 'needs-auth')
      io.stderr(`mcpkit serve: ${name}: ${state.state}: ${errorText(state.error)}\n`);
    else if (flags.verbose) io.stderr(`mcpkit serve: ${name}: ${state.state} (${reason})\n`);
  });
  // Over stdio the one client can be asked what a backend asks outside any call (roots at
  // its start), and its roots/list_changed goes to every connected backend.
  const stdioFace =
    bind === undefined
      ? new StdioListener({
          ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
          tooLargeAdvice: 'start mcpkit serve with a larger --max-message-bytes <n> to accept it',
          // Typed at a terminal, the answers are shown there: what a backend sent can hold
          // DEL, C1 and bidi controls, which JSON.stringify leaves raw; escaped as \uXXXX,
          // every line is still the same JSON.
          ...(interactive ? { stdout: terminalStdout() } : {}),
          waitMs: timeoutMs,
          onrootschanged: () => {
            for (const name of served.map((s) => s.name)) {
              const state = manager.state(name);
              if (state?.state === 'connected')
                void state.client.notifyRootsChanged().catch(() => {});
            }
          },
        })
      : undefined;
  gateway = createGatewayEndpoints({
    config: gatewayConfig,
    endpoint: flags.endpoint,
    // Over stdio, one client and one endpoint; over HTTP, each at /mcp/<name> as well.
    single: bind === undefined,
    manager,
    servers: served.map((s) => s.name),
    info: { name: 'mcpkit-serve', version },
    naming: { separator, prefix: !flags['no-prefix'] },
    filter: toolFilter(flags.tools ?? []),
    ...(flags.search ? { toolSearch: true } : {}),
    callTimeoutMs: timeoutMs,
    ...(ssePollAfterMs !== undefined ? { ssePollAfterMs } : {}),
    ...(stdioFace ? { soleClient: stdioFace } : {}),
    describeError: describeBackendError,
    warn: (text, error) => {
      const advice = errorAdvice(error);
      io.stderr(`mcpkit serve: ${text}${advice ? ` ${advice}` : ''}\n`);
    },
    ...(access ? { access } : {}),
  });
  // SIGHUP reopens the audit file (log rotation) instead of stopping the gateway.
  const unhangup =
    access && gatewayConfig?.access?.audit?.file !== undefined
      ? shutdown?.onHangup(() => {
          try {
            access.reopenAudit();
            io.stderr('mcpkit serve: SIGHUP: the audit file was reopened\n');
          } catch (error) {
            io.stderr(
              `mcpkit serve: SIGHUP: the audit file could not be reopened (the old one stays open): ${(error as Error).message}\n`,
            );
          }
        })
      : undefined;
  let stop: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let closeFace: (() => Promise<void>) | undefined;
  let watcher: GatewayConfigWatcher | undefined;
  let accessOn = gatewayConfig?.access !== undefined;
  const closeAll = async () => {
    unhangup?.();
    watcher?.close();
    await closeFace?.().catch(() => {});
    await gateway?.close().catch(() => {});
    await manager.close();
    access?.close();
    await shared?.store.close();
  };
  // The CLI's signal handling (SIGINT, SIGTERM, SIGHUP) closes the gateway and every backend's
  // process tree before it exits; without a Shutdown (a host calling this), signals just stop.
  const onSignal = () => stop?.();
  // "closing N connections" counts the backends (at least the gateway itself).
  const untrack = shutdown?.track({
    close: closeAll,
    connections: () => Math.max(1, manager.snapshot().servers.length),
  });
  if (!shutdown) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    // The lists fill in as backends connect (statechange), with list_changed for clients
    // already served; `start` reads every backend once they all settled.
    const settled = manager
      .connectAll()
      .then(() => gateway?.start())
      .catch((error: Error) => io.stderr(`mcpkit serve: ${error.message}\n`));
    // Edited, the gateway config applies at once (list_changed to the clients); one that
    // does not parse or check leaves the last good one in force.
    if (configFile !== undefined)
      watcher = watchGatewayConfig(
        configFile,
        {
          servers: names,
          onconfig: async (config) => {
            access?.configure(config.access);
            accessOn = config.access !== undefined;
            await gateway?.reconfigure(config);
            // New scope requirements apply at once; other auth changes need a restart.
            oauth?.server.reconfigure({
              ...(config.auth?.scopes ? { scopes: config.auth.scopes } : {}),
              endpointScopes: endpointScopesOf(config.auth),
            });
            io.stderr(`mcpkit serve: gateway config ${configFile} reloaded\n`);
          },
          onerror: (error) => {
            const lines = GatewayConfigError.isInstance(error)
              ? gatewayConfigLines(error)
              : [`${configFile}: ${error.message}`];
            // An access policy that cannot be read fails closed: no call is served until
            // the file is fixed (and /healthz says so). That is the policy in force, or one
            // being added: a file that parses but whose access section does not check.
            const addingPolicy =
              GatewayConfigError.isInstance(error) &&
              error.issues.some((i) => i.path === 'access' || i.path.startsWith('access.'));
            if (access && (accessOn || addingPolicy)) {
              access.failClosed(lines[0] ?? 'the gateway config could not be read');
              io.stderr(
                `mcpkit serve: the gateway config cannot be read; every call is refused until it is fixed:\n${lines.map((l) => `  ${l}\n`).join('')}`,
              );
              return;
            }
            io.stderr(
              `mcpkit serve: the gateway config was not reloaded (the last good one stays in force):\n${lines.map((l) => `  ${l}\n`).join('')}`,
            );
          },
        },
        configText,
      );
    if (bind) {
      await settled;
      const face = await listenHttp(gateway.default, {
        endpoints: gateway,
        host: bind.host,
        port: bind.port,
        ...(auth?.kind === 'token'
          ? {
              token: auth.token,
              ...(gatewayConfig?.auth?.static
                ? { tokenSubject: gatewayConfig.auth.static.subject }
                : {}),
            }
          : oauth === undefined
            ? { auth: 'none' as const }
            : {}),
        ...(oauth !== undefined
          ? {
              oauth: oauth.server,
              ...(oauth.publicUrl !== undefined ? { publicUrl: oauth.publicUrl } : {}),
            }
          : {}),
        allowedHosts,
        allowedOrigins,
        ...(maxMessageBytes !== undefined ? { maxBodyBytes: maxMessageBytes } : {}),
        tooLargeAdvice: 'mcpkit serve --max-message-bytes <n> raises it',
        ...httpLimits(gatewayConfig?.limits, shared || undefined),
      });
      if (shared) {
        const down = await shared.store.ping().then(
          () => undefined,
          (error: Error) => error.message,
        );
        io.stderr(
          `mcpkit serve: replica ${shared.replicaId}, sessions shared in ${shared.shown}${down === undefined ? '' : ` (not answering yet: ${down}; /readyz answers 503 until it does)`}\n`,
        );
      }
      if (auth && !(auth.kind === 'none' && oauth !== undefined))
        io.stderr(`mcpkit serve: ${authLine(auth, face.url)}\n`);
      if (oauth !== undefined)
        io.stderr(
          `mcpkit serve: OAuth access tokens from ${oauth.server.issuers.join(', ')} (metadata at ${oauth.publicUrl ?? face.url.origin}/.well-known/oauth-protected-resource/mcp)\n`,
        );
      closeFace = face.close;
      io.stderr(`mcpkit serve: listening on ${face.url.href}\n`);
      for (const name of gateway.names())
        io.stderr(`mcpkit serve: endpoint "${name}" on ${face.url.href}/${name}\n`);
    } else {
      // A host times out a slow initialize: it is answered once every backend settled, or
      // after backendWaitMs with what has connected by then (a hung backend never holds it).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        settled,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, backendWaitMs);
        }),
      ]);
      clearTimeout(timer);
      if (interactive)
        io.stderr(
          `mcpkit serve: ${served.length} server${served.length === 1 ? '' : 's'} (${served.map((c) => c.name).join(', ') || 'none'}) served as one MCP server on stdin/stdout. An MCP host (Claude Desktop, VS Code, an agent) starts this command itself: see "mcpkit serve --help" and the README for its config. Typed here, each line is a JSON-RPC message; Ctrl-C stops.\n`,
        );
      const session = await stdioFace!.listen(gateway.default.server);
      void session.closed.then(() => stop?.());
    }
    await (shutdown
      ? Promise.race([
          stopped,
          new Promise((resolve) =>
            shutdown.signal.addEventListener('abort', resolve, { once: true }),
          ),
        ])
      : stopped);
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await closeAll();
    untrack?.();
  }
}

/** This process's stdout, with what a terminal could act on escaped inside the JSON lines. */
function terminalStdout(): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      process.stdout.write(neutralize(String(chunk), { newlines: true, tabs: true }), done);
    },
  });
}

/**
 * The HTTP listener's caps from the gateway config's `limits`, and with a shared store the
 * session limits that replicas need: the store, the replica id, and every answer an event
 * stream (a call whose replica dies is resumed elsewhere).
 */
function httpLimits(
  caps: GatewayConfig['limits'],
  shared: ServeStore | undefined,
): Pick<HttpListenerOptions, 'maxConnectionsPerAddress' | 'maxConnections' | 'limits'> {
  return {
    ...(caps?.maxConnectionsPerAddress !== undefined
      ? { maxConnectionsPerAddress: caps.maxConnectionsPerAddress }
      : {}),
    ...(caps?.maxConnections !== undefined ? { maxConnections: caps.maxConnections } : {}),
    limits: {
      ...(caps?.maxSessionsPerClient !== undefined
        ? { maxSessionsPerClient: caps.maxSessionsPerClient }
        : {}),
      ...(shared
        ? {
            sessionStore: shared.store,
            replicaId: shared.replicaId,
            ...(shared.heartbeatMs !== undefined ? { replicaHeartbeatMs: shared.heartbeatMs } : {}),
            responseMode: 'sse' as const,
          }
        : {}),
    },
  };
}

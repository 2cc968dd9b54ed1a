import type { McpClient } from '@mcpkit/client';
import { type ResolvedServer, urlOf } from '@mcpkit/config';
import type { ReconnectPolicy } from './backoff.js';
import { ServerConnectError, ServerNotEnabledError } from './errors.js';
import { defaultHints, type ResolvedHints } from './hints.js';
import type { ConnectedState, FailedState, NeedsAuthState, ServerState } from './state.js';
import { cut } from './text.js';

const TERMINAL_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ECONNREFUSED',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
const TERMINAL_TEXT =
  /ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ECONNREFUSED|body timeout|terminated|stream lost|other side closed/i;

function* chain(error: unknown): Generator<Record<string, unknown>> {
  let current = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/** Nothing listens at the server's address: a request that met this was never sent. */
export function isRefused(error: unknown): boolean {
  for (const e of chain(error)) if (e.code === 'ECONNREFUSED') return true;
  return false;
}

/** A network error that says the connection is gone (not a server's answer). */
export function isConnectionLost(error: unknown): boolean {
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && TERMINAL_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && TERMINAL_TEXT.test(e.message)) return true;
  }
  return false;
}

function find<T>(
  error: unknown,
  pick: (e: Record<string, unknown>) => T | undefined,
): T | undefined {
  for (const e of chain(error)) {
    const value = pick(e);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Turns a connect error into the state a host sees, with a next step for each cause. */
export function classifyFailure(
  name: string,
  server: ResolvedServer,
  error: Error,
  hints: ResolvedHints = defaultHints,
): FailedState | NeedsAuthState {
  const url = urlOf(server.config);
  const needsAuth = find(error, (e) =>
    e.code === 'MCPKIT_NEEDS_AUTH' || e.code === 'MCPKIT_UNAUTHORIZED'
      ? (e as unknown as Error)
      : undefined,
  );
  if (needsAuth) {
    return {
      name,
      state: 'needs-auth',
      error: new ServerConnectError(name, needsAuth, hints.signIn(name), {
        ...(url ? { url } : {}),
      }),
      url: url ?? '',
    };
  }
  const exitCode = find(error, (e) =>
    e.code === 'MCPKIT_PROCESS_EXITED' && typeof e.exitCode === 'number' ? e.exitCode : undefined,
  );
  const stderrTail = find(error, (e) =>
    typeof e.stderrTail === 'string' && e.stderrTail.trim() !== '' ? e.stderrTail : undefined,
  );
  const status = find(error, (e) =>
    typeof e.status === 'number' && e.status > 0 && 'bodyExcerpt' in e ? e.status : undefined,
  );
  const httpUrl = find(error, (e) =>
    typeof e.url === 'string' && 'bodyExcerpt' in e ? e.url : undefined,
  );
  const code = find(error, (e) => (typeof e.code === 'string' ? e.code : undefined));
  const reconnect = hints.reconnect(name);
  const next =
    code === 'MCPKIT_SERVER_NOT_ENABLED' || code === 'MCPKIT_UNSUPPORTED_SERVER_TYPE'
      ? 'see above'
      : code === 'MCPKIT_TIMEOUT'
        ? `${reconnect} to try again`
        : exitCode !== undefined || code === 'MCPKIT_PROCESS_SPAWN'
          ? `check the command and its stderr, then ${reconnect}`
          : status !== undefined
            ? `check the URL and the server, then ${reconnect}`
            : isConnectionLost(error)
              ? `check that the server is running and reachable, then ${reconnect}`
              : `${reconnect} to try again`;
  const wrapped =
    code === 'MCPKIT_SERVER_NOT_ENABLED' || code === 'MCPKIT_UNSUPPORTED_SERVER_TYPE'
      ? error
      : new ServerConnectError(name, error, next, {
          ...(exitCode !== undefined ? { exitCode } : {}),
          ...(stderrTail ? { stderrTail } : {}),
          ...(httpUrl || url ? { url: httpUrl ?? url } : {}),
          ...(status !== undefined ? { status } : {}),
        });
  return {
    name,
    state: 'failed',
    error: wrapped,
    ...(exitCode !== undefined ? { exitCode } : {}),
    ...(stderrTail ? { stderrTail } : {}),
    ...(httpUrl || url ? { url: (httpUrl ?? url)! } : {}),
    ...(status !== undefined ? { status } : {}),
  };
}

/** A server's state when it is added: disabled (config or host), else pending. */
export function initialState(
  server: ResolvedServer,
  hostDisabled: boolean,
  policy: ReconnectPolicy,
  hints: ResolvedHints = defaultHints,
): ServerState {
  const status = server.status ?? 'enabled';
  if (status !== 'enabled' || server.config.disabled === true) {
    const shown = status === 'enabled' ? 'disabled' : status;
    return {
      name: server.name,
      state: 'disabled',
      reason: new ServerNotEnabledError(server.name, shown, server.reason, hints).message,
    };
  }
  if (hostDisabled)
    return {
      name: server.name,
      state: 'disabled',
      reason: `server "${server.name}" was disabled by the host; ${hints.hostEnable(server.name)}`,
    };
  return {
    name: server.name,
    state: 'pending',
    reconnectAttempt: 0,
    maxReconnectAttempts: policy.fastAttempts,
    reason: 'not connected yet',
  };
}

/** A server's state once its handshake is done; instructions cut at `instructionChars`. */
export function connectedState(
  name: string,
  client: McpClient,
  instructionChars: number,
  connectedAt: number,
  connectMs: number,
): ConnectedState {
  const instructions = client.instructions;
  return {
    name,
    state: 'connected',
    client,
    capabilities: client.serverCapabilities ?? {},
    serverInfo: client.serverInfo,
    protocolVersion: client.protocolVersion ?? '',
    era: client.era ?? 'legacy',
    ...(instructions ? { instructions: cut(instructions, instructionChars) } : {}),
    connectedAt,
    connectMs,
  };
}

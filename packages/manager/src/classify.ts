import type { AuthErrorCode } from '@mcpkit/auth';
import type { McpClient } from '@mcpkit/client';
import { mayContact, type ResolvedServer, ServerNotEnabledError } from '@mcpkit/config';
import { urlOf } from '@mcpkit/config/internal';
import {
  HttpError,
  McpkitError,
  MessageTooLargeError,
  TimeoutError,
  UnauthorizedError,
} from '@mcpkit/jsonrpc';
import type { StdioErrorCode } from '@mcpkit/transport-stdio';
import type { ReconnectPolicy } from './backoff.js';
import { CrashLoopError, ServerConnectError, UnsupportedServerTypeError } from './errors.js';
import type { Diagnosis, FailureCause, NextStep } from './failure.js';
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

// Typed against auth's codes without loading @mcpkit/auth (a host without OAuth never does).
const NEEDS_AUTH: (typeof AuthErrorCode)['NeedsAuth'] = 'MCPKIT_NEEDS_AUTH';
// Likewise for the stdio transport's codes (a host without stdio servers never loads it).
const PROCESS_SPAWN: (typeof StdioErrorCode)['ProcessSpawn'] = 'MCPKIT_PROCESS_SPAWN';
const PROCESS_EXITED: (typeof StdioErrorCode)['ProcessExited'] = 'MCPKIT_PROCESS_EXITED';

function mcpkitErrors(error: unknown): McpkitError[] {
  const out: McpkitError[] = [];
  for (const e of chain(error)) if (McpkitError.isInstance(e)) out.push(e);
  return out;
}

/** The OS error code (`ECONNREFUSED`, …) of a network failure in the chain, if any. */
function networkErrno(error: unknown): string | undefined {
  return find(error, (e) =>
    typeof e.code === 'string' && TERMINAL_CODES.has(e.code) ? e.code : undefined,
  );
}

/** The gate's refusal as facts (the config's status says which). */
export function notEnabledDiagnosis(status: string): { failure: FailureCause; nextStep: NextStep } {
  switch (status) {
    case 'pending-approval':
      return { failure: { kind: 'not-approved' }, nextStep: { kind: 'approve' } };
    case 'rejected':
      return { failure: { kind: 'rejected' }, nextStep: { kind: 'approve' } };
    case 'blocked':
      return { failure: { kind: 'denied-by-policy' }, nextStep: { kind: 'ask-admin' } };
    case 'skipped':
      return { failure: { kind: 'skipped' }, nextStep: { kind: 'none' } };
    default:
      return {
        failure: { kind: 'disabled', by: 'config' },
        nextStep: { kind: 'enable', by: 'config' },
      };
  }
}

/**
 * Why a connect failed, from the error's classes and codes (never its message): the first
 * error of the chain that says something decides.
 */
export function diagnose(error: unknown, configuredUrl?: string): Diagnosis {
  const errors = mcpkitErrors(error);
  const stderrTail = find(error, (e) =>
    typeof e.stderrTail === 'string' && e.stderrTail.trim() !== '' ? e.stderrTail : undefined,
  );
  const tail = stderrTail ? { stderrTail } : {};
  const at = configuredUrl ? { url: configuredUrl } : {};
  if (find(error, (e) => (e.code === NEEDS_AUTH ? true : undefined)))
    return {
      failure: { kind: 'needs-sign-in', ...at },
      nextStep: { kind: 'sign-in' },
      ...at,
    };
  for (const e of errors) {
    if (ServerNotEnabledError.isInstance(e)) return { ...notEnabledDiagnosis(e.status), ...at };
    if (UnsupportedServerTypeError.isInstance(e))
      return {
        failure: { kind: 'unsupported-type', type: e.type },
        nextStep: { kind: 'fix-config' },
      };
    if (CrashLoopError.isInstance(e))
      return {
        failure: e.failure,
        nextStep: e.nextStep,
        ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}),
        ...tail,
      };
    if (UnauthorizedError.isInstance(e)) {
      const url = UnauthorizedError.isInstance(e) ? e.url : configuredUrl;
      return {
        failure: { kind: 'needs-sign-in', ...(url ? { url } : {}) },
        nextStep: { kind: 'sign-in' },
        ...(url ? { url } : {}),
      };
    }
    if (TimeoutError.isInstance(e))
      return {
        failure: { kind: 'timeout', timeoutMs: e.timeoutMs },
        nextStep: { kind: 'raise-limit', option: 'limits.connectTimeoutMs' },
        ...tail,
        ...at,
      };
    if (e.code === PROCESS_SPAWN) {
      const command = (e as { command?: unknown }).command;
      const errno = (e.cause as { code?: unknown } | undefined)?.code;
      return {
        failure: {
          kind: 'spawn-failed',
          command: typeof command === 'string' ? command : '',
          ...(typeof errno === 'string' ? { errno } : {}),
        },
        nextStep: { kind: 'fix-config' },
      };
    }
    if (e.code === PROCESS_EXITED) {
      const { exitCode, signal } = e as { exitCode?: unknown; signal?: unknown };
      return {
        failure: {
          kind: 'exited',
          ...(typeof exitCode === 'number' ? { exitCode } : {}),
          ...(typeof signal === 'string' ? { signal } : {}),
        },
        nextStep: { kind: 'fix-config' },
        ...(typeof exitCode === 'number' ? { exitCode } : {}),
        ...tail,
      };
    }
    if (HttpError.isInstance(e) && e.status > 0)
      return {
        failure: { kind: 'http-status', status: e.status, url: e.url },
        // A 5xx is the server's own trouble, which may pass; a 4xx is the request's (URL, headers).
        nextStep: e.status >= 500 ? { kind: 'retry' } : { kind: 'fix-config' },
        status: e.status,
        url: e.url,
      };
    if (MessageTooLargeError.isInstance(e))
      return {
        failure: { kind: 'message-too-large', limit: e.limitBytes },
        nextStep: { kind: 'raise-limit', option: 'maxMessageBytes' },
        ...at,
      };
  }
  const errno = networkErrno(error);
  if (errno !== undefined)
    return {
      failure: { kind: 'unreachable', ...(configuredUrl ? { url: configuredUrl } : {}), errno },
      nextStep: { kind: 'reconnect' },
      ...at,
    };
  const code = errors[0]?.code;
  return {
    failure: { kind: 'other', ...(code ? { code } : {}) },
    nextStep: { kind: 'reconnect' },
    ...tail,
    ...at,
  };
}

/** The manager's own words for a next step (a host words `nextStep` in its own). */
export function nextStepText(step: NextStep, name: string, hints: ResolvedHints): string {
  switch (step.kind) {
    case 'sign-in':
      return step.interactive === false ? hints.signInElsewhere(name) : hints.signIn(name);
    case 'raise-limit':
      return step.option === 'limits.connectTimeoutMs'
        ? `${hints.connectTimeout(name)}, then ${hints.reconnect(name)}`
        : `raise ${step.option}, then ${hints.reconnect(name)}`;
    case 'fix-config':
      return `check the server's entry and its stderr, then ${hints.reconnect(name)}`;
    case 'approve':
      return 'approve it for this project first';
    case 'enable':
      return step.by === 'host' ? hints.hostEnable(name) : 'enable it in its config first';
    case 'ask-admin':
      return 'the managed policy decides; ask its administrator';
    case 'fix-server':
      return "only the server's authors can fix it";
    case 'none':
      return 'nothing to do here';
    default:
      return `${hints.reconnect(name)} to try again`;
  }
}

/** Turns a connect error into the state a host sees, with the cause and next step as facts. */
export function classifyFailure(
  name: string,
  server: ResolvedServer,
  error: Error,
  hints: ResolvedHints = defaultHints,
): FailedState | NeedsAuthState {
  const configured = urlOf(server.config);
  const d = diagnose(error, configured);
  if (d.failure.kind === 'needs-sign-in') {
    const url = d.url ?? configured ?? '';
    return {
      name,
      state: 'needs-auth',
      error: new ServerConnectError(name, error, nextStepText(d.nextStep, name, hints), {
        ...(url ? { url } : {}),
        failure: d.failure,
        nextStep: d.nextStep,
      }),
      url,
      failure: d.failure,
      nextStep: d.nextStep,
    };
  }
  // The gate's and the type's refusals are complete as they are: nothing was tried.
  const wrapped =
    ServerNotEnabledError.isInstance(error) ||
    UnsupportedServerTypeError.isInstance(error) ||
    CrashLoopError.isInstance(error)
      ? error
      : new ServerConnectError(name, error, nextStepText(d.nextStep, name, hints), {
          ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}),
          ...(d.stderrTail ? { stderrTail: d.stderrTail } : {}),
          ...(d.url ? { url: d.url } : {}),
          ...(d.status !== undefined ? { status: d.status } : {}),
          failure: d.failure,
          nextStep: d.nextStep,
        });
  return {
    name,
    state: 'failed',
    error: wrapped,
    failure: d.failure,
    nextStep: d.nextStep,
    ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}),
    ...(d.stderrTail ? { stderrTail: d.stderrTail } : {}),
    ...(d.url ? { url: d.url } : {}),
    ...(d.status !== undefined ? { status: d.status } : {}),
  };
}

/** A server's state when it is added: disabled (config or host), else pending. */
export function initialState(
  server: ResolvedServer,
  hostDisabled: boolean,
  policy: ReconnectPolicy,
  hints: ResolvedHints = defaultHints,
): ServerState {
  if (!mayContact(server)) {
    const refusal = new ServerNotEnabledError(server);
    return {
      name: server.name,
      state: 'disabled',
      reason: refusal.message,
      ...notEnabledDiagnosis(refusal.status),
    };
  }
  if (hostDisabled)
    return {
      name: server.name,
      state: 'disabled',
      reason: `server "${server.name}" was disabled by the host; ${hints.hostEnable(server.name)}`,
      failure: { kind: 'disabled', by: 'host' },
      nextStep: { kind: 'enable', by: 'host' },
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

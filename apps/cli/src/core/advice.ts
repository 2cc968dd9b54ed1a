import { ServerNotEnabledError } from '@mcpkit/config';
import { MessageTooLargeError, TimeoutError } from '@mcpkit/jsonrpc';
import {
  ConnectTimeoutError,
  type ManagerHints,
  ServerConnectError,
  type ServerState,
  ServerUnavailableError,
} from '@mcpkit/manager';
import { refusalText } from './gate.js';
import { xaaNextStep } from './xaa-advice.js';

/**
 * The words the manager puts into its own messages (signIn, connect budget, enable, start
 * again), as the CLI's commands and flags. They fill the manager's sentences, which also
 * carry the same step as a structured `nextStep`; where a line is the CLI's own, it is
 * worded from that field instead (`nextForFailure`, `errorAdvice`).
 */
export const CLI_HINTS: ManagerHints = {
  signIn: (server) => `run "mcpkit login ${server}"`,
  signInElsewhere: (server) => `run "mcpkit login ${server}"`,
  connectTimeout: () => 'raise mcpkit --timeout <ms> (the connect budget)',
  reconnect: () => 'run the command again',
  // Only the shell disables a server for the session alone; its own command undoes that.
  hostEnable: (server) => `type "enable ${server}" in the shell`,
};

/** The error itself or one of its causes (a few levels: a cause chain is the library's). */
export function causeOf<T>(error: unknown, is: (e: unknown) => e is T): T | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (is(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What the CLI tells the user to do about an error, from its class and facts alone (never
 * its message, whose wording is the library's): a message over the size limit names
 * `--max-message-bytes`, a request that ran out of time `--timeout`. Empty when the error
 * calls for no flag.
 */
export function errorAdvice(error: unknown): string {
  if (causeOf(error, (e): e is MessageTooLargeError => MessageTooLargeError.isInstance(e)))
    return '(--max-message-bytes <n> accepts more)';
  const timeout = causeOf(error, (e): e is TimeoutError => TimeoutError.isInstance(e));
  // The connect budget has its own step (`nextForFailure`); a request's time is `--timeout`.
  if (timeout && !ConnectTimeoutError.isInstance(timeout) && timeout.option === 'timeoutMs')
    return '(--timeout <ms> allows longer)';
  return '';
}

/** An error's message with the CLI's advice for it (`errorAdvice`) after it. */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const advice = errorAdvice(error);
  return advice ? `${message} ${advice}` : message;
}

/** What a server's state says, in one line, and what to do next (empty when nothing). */
export interface StateSummary {
  state: string;
  reason: string;
  next: string;
  /** What the server wrote to stderr before a connect timeout (often why it never answered): its last lines. */
  stderr?: string[];
}

/** How many of a server's last stderr lines go under its line. */
const STDERR_LINES = 5;

function stderrLines(tail: string | undefined): string[] {
  const lines = (tail ?? '').split(/\r?\n/).filter((l) => l.trim() !== '');
  return lines.slice(-STDERR_LINES);
}

type Failed = Extract<ServerState, { state: 'failed' }>;

/** Raising a manager limit, in the CLI's flags. */
function raiseLimit(option: string): string {
  switch (option) {
    case 'limits.connectTimeoutMs':
      return '--timeout <ms>';
    case 'maxMessageBytes':
      return '--max-message-bytes <n>';
    default:
      return option;
  }
}

/**
 * What to do about a failed server, worded from its `failure` and `nextStep` alone (never
 * from the library's message, whose wording may change).
 */
export function nextForFailure(name: string, state: Failed): string {
  const { failure, nextStep } = state;
  const stderr = `run "mcpkit -v servers -s ${name}"`;
  const xaa = xaaNextStep(state.error, name);
  if (xaa) return xaa;
  switch (failure.kind) {
    case 'timeout': {
      const raise = `raise ${raiseLimit(nextStep.kind === 'raise-limit' ? nextStep.option : 'limits.connectTimeoutMs')} if "${name}" is slow to start`;
      // Its stderr is shown under the line when it wrote any.
      return state.stderrTail?.trim()
        ? `${raise}, or fix what its stderr says`
        : `${raise}, or ${stderr} to see its stderr`;
    }
    case 'unreachable':
      return `check that the server at ${failure.url ?? state.url ?? 'its URL'} is running (mcpkit list shows the entry)`;
    case 'http-status':
      return nextStep.kind === 'retry'
        ? `the server failed with HTTP ${failure.status}: try again later or check the server's own logs`
        : `the server answered HTTP ${failure.status}: check the URL and headers of "${name}" (mcpkit list)`;
    case 'spawn-failed':
      // The spawn error says what to install or fix when the OS said why.
      if (failure.errno === 'ENOENT' || failure.errno === 'EACCES') return '';
      return `check the command of "${name}" and its stderr (${stderr})`;
    case 'exited':
      return `check the command of "${name}" and its stderr (${stderr})`;
    case 'crash-loop':
      return 'fix the server or its config, then run again';
    case 'message-too-large':
      return `mcpkit ${raiseLimit('maxMessageBytes')} accepts more`;
    case 'not-approved':
    case 'rejected':
    case 'disabled':
    case 'denied-by-policy':
    case 'skipped':
    case 'unsupported-type':
      // The reason is the gate's (or the type's) whole sentence, with its next step.
      return '';
    default:
      return `${stderr} to see its stderr and warnings`;
  }
}

/** The facts of a failure in one sentence, without the library's advice. */
function failureReason(name: string, state: Failed): string {
  const error = state.error;
  const { failure } = state;
  if (failure.kind === 'crash-loop') {
    const tail = state.stderrTail?.trim();
    return `server "${name}": crashed ${failure.attempts} times within ${Math.round(failure.windowMs / 1000)} s of starting (last exit code ${failure.exitCode ?? 'unknown'}); not restarting it on its own${tail ? `; last stderr:\n${tail}` : ''}`;
  }
  if (failure.kind === 'timeout')
    // The facts in our words; the stderr goes under the line (`stderr`), the advice in `next`.
    return `server "${name}": did not finish connecting within ${failure.timeoutMs} ms (handshake included); the server was stopped`;
  if (ServerNotEnabledError.isInstance(error)) return refusalText(error);
  // A connect error's own text is the cause's; its next step is the manager's (not ours).
  const cause = ServerConnectError.isInstance(error) ? (error.cause as Error) : error;
  const prefix = `server "${name}"`;
  const text = cause.message.startsWith(prefix)
    ? cause.message.slice(prefix.length).replace(/^:\s*/, '')
    : cause.message;
  return once(`${prefix}: ${text}`, name);
}

export function summarize(state: ServerState): StateSummary {
  switch (state.state) {
    case 'connected':
      return { state: 'connected', reason: '', next: '' };
    case 'failed': {
      const stderr = state.failure.kind === 'timeout' ? stderrLines(state.stderrTail) : [];
      const next = nextForFailure(state.name, state);
      return {
        state: 'failed',
        reason: withoutTrailing(failureReason(state.name, state), next),
        next,
        ...(stderr.length > 0 ? { stderr } : {}),
      };
    }
    case 'needs-auth':
      return {
        state: 'needs-auth',
        reason: `server "${state.name}" needs a sign-in`,
        next: `run "mcpkit login ${state.name}"`,
      };
    case 'pending':
      return {
        state: state.reconnectAttempt > 0 ? 'reconnecting' : 'starting',
        reason: state.reason ?? '',
        next: '',
      };
    case 'disabled':
      return { state: 'disabled', reason: state.reason, next: '' };
  }
}

/**
 * The reason without a closing sentence equal to the next step (a library message may end
 * with the same advice, once in the CLI's words), so that the line says it once.
 */
function withoutTrailing(reason: string, next: string): string {
  if (next === '' || !reason.endsWith(next)) return reason;
  const head = reason.slice(0, reason.length - next.length);
  const trimmed = head.replace(/[.;,]\s*$/, '');
  return trimmed === head ? reason : trimmed;
}

/** A nested cause repeats the server's name: keep the first. */
export function once(message: string, server: string): string {
  const prefix = `server "${server}": `;
  const first = message.indexOf(prefix);
  if (first < 0) return message;
  const head = message.slice(0, first + prefix.length);
  return (
    head +
    message
      .slice(first + prefix.length)
      .split(prefix)
      .join('')
  );
}

/** One line for stderr: server, cause, next step; then the server's last stderr lines, if any. */
export function failureLine(state: ServerState): string {
  const s = summarize(state);
  const line = s.next ? `${s.reason}; ${s.next}` : s.reason;
  return s.stderr ? `${line}\n${stderrBlock(s.stderr).join('\n')}` : line;
}

/** The server's stderr lines, indented under its line (the caller neutralizes them for a terminal). */
export function stderrBlock(lines: readonly string[]): string[] {
  return lines.map((l) => `    stderr: ${l}`);
}

type Connected = Extract<ServerState, { state: 'connected' }>;
type Failure = NonNullable<Connected['degraded']>[number];

const LIST_METHOD: Record<Failure['list'], string> = {
  tools: 'tools/list',
  prompts: 'prompts/list',
  resources: 'resources/list',
};

/** A failed list of a connected server in the CLI's words: what failed, why, what to do. */
export function listFailure(server: string, failure: Failure): { reason: string; next: string } {
  const prefix = `server "${server}": `;
  const advice = errorAdvice(failure.error);
  let text = once(advice ? `${failure.message} ${advice}` : failure.message, server);
  if (text.startsWith(prefix)) text = text.slice(prefix.length);
  const method = LIST_METHOD[failure.list];
  // The client's message names the method already (`"tools/list" failed: …`).
  const reason = text.startsWith(`"${method}"`) ? text : `"${method}" failed: ${text}`;
  switch (failure.nextStep.kind) {
    case 'fix-server':
      return {
        reason,
        next: `its answer does not fit the MCP schema, which only the server's authors can fix: report it to them (run "mcpkit -v ${failure.list} -s ${server}" to see the details)`,
      };
    case 'reconnect':
      return { reason, next: 'the connection broke: run the command again' };
    default:
      return {
        reason,
        next: `run the command again; if it keeps failing, run "mcpkit -v ${failure.list} -s ${server}" to see the server's stderr`,
      };
  }
}

/**
 * Tools the client repaired or left out of the server's list: one line per action and
 * reason, naming the tools (the first 8 of a longer run, then how many more).
 */
export function toolIssueLines(state: Connected): string[] {
  const groups = new Map<string, { verb: string; reason: string; tools: string[] }>();
  for (const i of state.toolIssues ?? []) {
    const verb = i.action === 'dropped' ? 'left out' : 'repaired';
    const key = `${verb}\0${i.reason}`;
    const group = groups.get(key) ?? { verb, reason: i.reason, tools: [] };
    group.tools.push(i.tool);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ verb, reason, tools }) => {
    if (tools.length === 1) return `server "${state.name}": tool "${tools[0]}" ${verb}: ${reason}`;
    const named = tools.slice(0, 8).map((t) => `"${t}"`);
    if (tools.length > 8) named.push(`${tools.length - 8} more`);
    return `server "${state.name}": ${tools.length} tools ${verb} (${named.join(', ')}): ${reason}`;
  });
}

/** The JSON-RPC codes of `@mcpkit/gateway`'s refusals (its `AccessErrorCode`). */
const GATEWAY_FORBIDDEN = -32040;
const GATEWAY_RATE_LIMITED = -32041;

/**
 * A call that an mcpkit gateway refused (`-32040` by its access policy, `-32041` by its rate
 * limit), worded from the error's data; `undefined` for any other error (or a server that
 * uses these codes for something else: the data must say which refusal it is).
 */
export function gatewayRefusal(
  server: string,
  tool: string,
  error: { rpcCode: number; data?: unknown },
): string | undefined {
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as Record<
    string,
    unknown
  >;
  const call = `server "${server}" (a gateway) refused the call of its tool "${tool}"`;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  if (error.rpcCode === GATEWAY_RATE_LIMITED && data.reason === 'rate-limit') {
    const wait = num(data.retryAfterSeconds);
    const rate = num(data.rate);
    const burst = num(data.burst);
    const limit =
      rate !== undefined && burst !== undefined
        ? ` (${rate} call${rate === 1 ? '' : 's'} a second, bursts of ${burst})`
        : '';
    return `${call}: your rate limit is spent${limit}; try again${wait !== undefined ? ` in ${wait} s` : ' later'}`;
  }
  if (error.rpcCode !== GATEWAY_FORBIDDEN) return undefined;
  if (data.reason === 'policy') {
    const scopes = Array.isArray(data.scopes)
      ? data.scopes.filter((s): s is string => typeof s === 'string')
      : [];
    return `${call}: its access policy does not let you call it${scopes.length > 0 ? `; signing in with the scope ${scopes.map((s) => `"${s}"`).join(' or ')} would ("mcpkit logout ${server}", then "mcpkit login ${server}")` : '; ask whoever runs the gateway for access'}`;
  }
  if (data.reason === 'policy-unreadable')
    return `${call}: its access policy cannot be read, so it refuses every call until whoever runs it fixes its config`;
  if (data.reason === 'audit-failing')
    return `${call}: its audit log cannot be written, so it refuses every call until whoever runs it fixes that`;
  return undefined;
}

/** The failed state a `ServerUnavailableError` was made from, rebuilt from its facts. */
export function failedStateOf(server: string, error: Error): ServerState | undefined {
  if (!ServerUnavailableError.isInstance(error) || error.state !== 'failed') return undefined;
  const cause = error.cause;
  if (!error.failure || !error.nextStep || !(cause instanceof Error)) return undefined;
  const facts = ServerConnectError.isInstance(cause) ? cause : undefined;
  return {
    name: server,
    state: 'failed',
    error: cause,
    failure: error.failure,
    nextStep: error.nextStep,
    ...(facts?.exitCode !== undefined ? { exitCode: facts.exitCode } : {}),
    ...(facts?.stderrTail !== undefined ? { stderrTail: facts.stderrTail } : {}),
    ...(facts?.url !== undefined ? { url: facts.url } : {}),
    ...(facts?.status !== undefined ? { status: facts.status } : {}),
  };
}

import type { McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import { urlOf } from '@mcpkit/config/internal';
import type { Transport } from '@mcpkit/jsonrpc';
import {
  CrashLoopBreaker,
  type CrashLoopPolicy,
  type ReconnectPolicy,
  reconnectDelay,
} from './backoff.js';
import { classifyFailure, connectedState, isConnectionLost, isRefused } from './classify.js';
import type { Clock } from './clock.js';
import { connectWithin } from './connect-attempt.js';
import { CrashLoopError, ManagerClosedError, type ServerUnavailableError } from './errors.js';
import type { ResolvedHints } from './hints.js';
import type { ManagerLimits } from './limits.js';
import { endpointOf, watchUntilOpen } from './reachability.js';
import type { ServerState } from './state.js';
import { cut } from './text.js';
import { unavailableError } from './unavailable.js';
import { waitFor } from './wait-for.js';

/** What a connection needs from its manager. */
export interface ConnectionHost {
  readonly clock: Clock;
  readonly limits: ManagerLimits;
  readonly reconnect: ReconnectPolicy;
  readonly crashLoop: CrashLoopPolicy;
  /** The next steps its messages give, in the host's words. */
  readonly hints: ResolvedHints;
  /** Gate + factory: throws before spawning anything for a server that is not enabled. */
  makeTransport(server: ResolvedServer): Promise<Transport>;
  makeClient(server: ResolvedServer): McpClient;
  /** Runs `task` in the server's connect pool (local or remote). */
  inPool<T>(server: ResolvedServer, task: () => Promise<T>): Promise<T>;
  publish(connection: ServerConnection, state: ServerState, reason: string): void;
}

const CONSECUTIVE_TERMINAL_ERRORS = 3;

/**
 * One server's connection and its supervision: the connect budget, reconnect with
 * backoff, the stdio crash-loop breaker, and the one shared immediate attempt a call on a
 * pending server triggers.
 */
export class ServerConnection {
  state: ServerState;
  client: McpClient | undefined;
  /** Epoch ms of the last call (idle stop). */
  lastUsedAt: number;
  private transport: Transport | undefined;
  private attempt = 0;
  private retryTimer: unknown;
  private probeTimer: unknown;
  private resetTimer: unknown;
  private inflight: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private generation = 0;
  private closed = false;
  private startedAt = 0;
  private connectedAt = 0;
  private terminalErrors = 0;
  private missedPings = 0;
  /** Epoch ms of the last health ping. */
  lastPingAt = 0;
  private readonly breaker: CrashLoopBreaker;
  /** Callers of `ready({ waitForReconnect })` waiting for the next state. */
  private stateWaiters: Array<() => void> = [];

  constructor(
    readonly server: ResolvedServer,
    private readonly host: ConnectionHost,
    initial: ServerState,
  ) {
    this.state = initial;
    this.lastUsedAt = host.clock.now();
    this.breaker = new CrashLoopBreaker(host.clock, host.crashLoop);
  }

  get name(): string {
    return this.server.name;
  }

  private get isStdio(): boolean {
    return (this.server.config.type ?? 'stdio') === 'stdio';
  }

  private set(state: ServerState, reason: string): void {
    this.state = state;
    this.host.publish(this, state, reason);
    const waiters = this.stateWaiters;
    this.stateWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** The first connect (or a manual one): a failure leaves the server `failed` or `needs-auth`. */
  connect(reason = 'connect'): Promise<void> {
    if (this.closed) return Promise.reject(new ManagerClosedError(this.name));
    // Already up: a second client would leave the first one's process running.
    if (this.isUp()) return Promise.resolve();
    return this.inflight ?? this.startRun('initial', reason);
  }

  /** Manual reconnect: forgets the breaker and the attempt counter, drops the connection. */
  async reconnect(reason = 'reconnect requested'): Promise<void> {
    this.breaker.reset();
    this.attempt = 0;
    this.clearRetry();
    await this.inflight?.catch(() => {});
    await this.drop();
    return this.connect(reason);
  }

  /**
   * The client to call with. A pending server gets one immediate attempt, shared by every
   * caller, awaited up to the call's own budget. With `waitForReconnect`, a caller whose
   * attempt failed while the server stays `pending` waits on for the reconnects the manager
   * makes on its own (backoff, reachability check), within the same budget; a state other
   * than `pending` or `connected` ends the wait.
   */
  async ready(
    options: { signal?: AbortSignal; timeoutMs?: number; waitForReconnect?: boolean } = {},
  ): Promise<McpClient> {
    const up = this.readyNow();
    if (up) return up;
    if (this.state.state === 'pending') {
      const deadline = this.host.clock.now() + (options.timeoutMs ?? Number.POSITIVE_INFINITY);
      if (!this.inflight) {
        this.clearRetry();
        this.startRun(this.attempt > 0 ? 'retry' : 'initial', 'a call is waiting');
      }
      await waitFor(this.inflight!, this.name, options);
      if (this.isUp()) return this.client!;
      while (options.waitForReconnect && this.state.state === 'pending' && !this.closed) {
        const { signal } = options;
        const timeoutMs = Math.max(1, deadline - this.host.clock.now());
        await waitFor(this.nextState(), this.name, {
          ...(signal ? { signal } : {}),
          ...(Number.isFinite(timeoutMs) ? { timeoutMs } : {}),
        });
        if (this.isUp()) return this.client!;
      }
    }
    throw this.unavailable();
  }

  /** Settles at the next state this connection publishes. */
  private nextState(): Promise<void> {
    return new Promise((resolve) => this.stateWaiters.push(resolve));
  }

  /**
   * The client when the server is up, without a promise (a tool call's hot path); marks
   * the connection used. Undefined otherwise: then `ready()` waits or says why not.
   */
  readyNow(): McpClient | undefined {
    this.lastUsedAt = this.host.clock.now();
    return this.isUp() ? this.client : undefined;
  }

  private isUp(): boolean {
    return this.state.state === 'connected' && this.client?.isConnected === true;
  }

  private unavailable(): ServerUnavailableError {
    return unavailableError(this.state, this.host.hints);
  }

  /**
   * A call failed: three terminal network errors in a row count as a drop; a remote server
   * that refuses the connection (nothing listens there) is a drop at once.
   */
  noteCallError(error: unknown): void {
    if (!this.isStdio && this.state.state === 'connected' && isRefused(error)) {
      this.onDrop(error as Error, this.generation);
      return;
    }
    if (!isConnectionLost(error)) return;
    this.terminalErrors++;
    if (this.terminalErrors >= CONSECUTIVE_TERMINAL_ERRORS)
      this.onDrop(error as Error, this.generation);
  }

  /**
   * An HTTP event stream dropped and its transport is re-opening it: a session the server
   * forgot (404) is a drop now; network errors count like failed calls.
   */
  noteStreamLost(reason: string): void {
    if (this.state.state !== 'connected') return;
    if (/session/i.test(reason) && /404|expired|not found/i.test(reason)) {
      this.onDrop(new Error(reason), this.generation);
      return;
    }
    this.noteCallError(new Error(reason));
  }

  noteCallSuccess(): void {
    this.terminalErrors = 0;
  }

  /**
   * The server forgot the session and `client` started a new one (Streamable HTTP, 404):
   * the connection works again, perhaps with other capabilities and lists. Published as a
   * new `connected` state, which drops and re-fetches the lists (the diff announces only
   * what changed).
   */
  sessionRenewed(client: McpClient): void {
    if (client !== this.client || this.state.state !== 'connected' || this.closed) return;
    this.terminalErrors = 0;
    this.missedPings = 0;
    const limit = this.host.limits.descriptionChars;
    this.set(
      connectedState(this.name, client, limit, this.connectedAt, this.state.connectMs),
      'session renewed',
    );
  }

  /** Lazy start: listed as pending, started by its first call. */
  park(reason: string): void {
    this.set(
      {
        name: this.name,
        state: 'pending',
        reconnectAttempt: 0,
        maxReconnectAttempts: this.host.reconnect.fastAttempts,
        reason,
      },
      reason,
    );
  }

  /** Health check of an idle connection: two missed pings in a row count as a drop. */
  async ping(timeoutMs: number): Promise<void> {
    const client = this.client;
    if (!client || this.state.state !== 'connected') return;
    const generation = this.generation;
    this.lastPingAt = this.host.clock.now();
    try {
      await client.ping({ timeoutMs });
      this.missedPings = 0;
    } catch (error) {
      if (generation !== this.generation) return;
      this.missedPings++;
      if (this.missedPings >= 2) {
        this.missedPings = 0;
        this.onDrop(
          new Error(
            `server "${this.name}": 2 health pings in a row went unanswered (${(error as Error).message})`,
          ),
          generation,
        );
      }
    }
  }

  /** Stops the connection and holds the server in `state` (disable, disconnect, idle). */
  async stop(state: ServerState, reason: string): Promise<void> {
    this.generation++;
    this.clearRetry();
    // A second stop while the first still tears the process down waits for it, so that the
    // new state is never published while the old process lives.
    const previous = this.stopping;
    const task = (async () => {
      await previous;
      await this.drop();
    })();
    this.stopping = task;
    await task;
    if (this.stopping === task) this.stopping = undefined;
    this.set(state, reason);
  }

  /** A stop is under way. */
  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.generation++;
    this.clearRetry();
    for (const resolve of this.stateWaiters.splice(0)) resolve();
    await this.inflight?.catch(() => {});
    await this.drop();
  }

  private clearRetry(): void {
    if (this.retryTimer !== undefined) this.host.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.probeTimer !== undefined) this.host.clock.clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
  }

  private async drop(): Promise<void> {
    this.generation++;
    if (this.resetTimer !== undefined) this.host.clock.clearTimeout(this.resetTimer);
    this.resetTimer = undefined;
    const client = this.client;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (client) await client.close().catch(() => {});
    else if (transport) await transport.close().catch(() => {});
  }

  /** Starts an attempt; `inflight` is cleared when it settles (unless a newer one replaced it). */
  private startRun(mode: 'initial' | 'retry', reason: string): Promise<void> {
    const task: Promise<void> = this.run(mode, reason).finally(() => {
      if (this.inflight === task) this.inflight = undefined;
    });
    this.inflight = task;
    return task;
  }

  private async run(mode: 'initial' | 'retry', reason: string): Promise<void> {
    const generation = ++this.generation;
    if (this.state.state !== 'pending' || mode === 'initial') {
      this.set(
        {
          name: this.name,
          state: 'pending',
          reconnectAttempt: this.attempt,
          maxReconnectAttempts: this.host.reconnect.fastAttempts,
          reason,
        },
        reason,
      );
    }
    let client: McpClient;
    const started = this.host.clock.now();
    try {
      client = await this.host.inPool(this.server, () => this.connectOnce(generation));
    } catch (error) {
      if (generation !== this.generation || this.closed) return;
      this.failed(error as Error, mode);
      return;
    }
    if (generation !== this.generation || this.closed) {
      await client.close().catch(() => {});
      return;
    }
    this.client = client;
    this.terminalErrors = 0;
    this.missedPings = 0;
    this.connectedAt = this.host.clock.now();
    this.lastUsedAt = this.connectedAt;
    this.lastPingAt = this.connectedAt;
    client.onclose = (cause) => this.onDrop(cause, generation);
    const previousOnError = client.onerror;
    client.onerror = (error) => {
      previousOnError?.(error);
      if (isConnectionLost(error)) this.noteCallError(error);
    };
    // Connected long enough: the next drop starts the backoff from the beginning.
    this.resetTimer = this.host.clock.setTimeout(() => {
      this.attempt = 0;
    }, this.host.reconnect.resetAfterMs);
    const limit = this.host.limits.descriptionChars;
    this.set(
      connectedState(this.name, client, limit, this.connectedAt, this.connectedAt - started),
      mode === 'retry' ? `reconnected after ${this.attempt} attempt(s)` : reason,
    );
  }

  /** One attempt within one budget; on expiry the transport (and its process tree) is closed. */
  private connectOnce(generation: number): Promise<McpClient> {
    if (generation !== this.generation) return Promise.reject(new ManagerClosedError(this.name));
    return connectWithin(this.server, this.host.limits.connectTimeoutMs, {
      clock: this.host.clock,
      makeTransport: (s) => this.host.makeTransport(s),
      makeClient: (s) => this.host.makeClient(s),
      ontransport: (transport, startedAt) => {
        this.transport = transport;
        this.startedAt = startedAt;
      },
      onabandon: (transport) => {
        if (this.transport === transport) this.transport = undefined;
      },
    });
  }

  private failed(error: Error, mode: 'initial' | 'retry'): void {
    const verdict = classifyFailure(this.name, this.server, error, this.host.hints);
    if (verdict.state === 'needs-auth') {
      this.set(verdict, 'the server needs a sign-in');
      return;
    }
    if (this.isStdio && verdict.exitCode !== undefined && this.breaker.recordExit(this.startedAt)) {
      this.trip(verdict.exitCode, verdict.stderrTail);
      return;
    }
    if (mode === 'initial') {
      this.set(verdict, 'connect failed');
      return;
    }
    this.schedule(error.message, error);
  }

  private trip(exitCode: number | undefined, stderrTail: string | undefined): void {
    const error = new CrashLoopError(
      this.name,
      this.breaker.recentEarlyExits,
      this.host.crashLoop.windowMs,
      exitCode,
      stderrTail,
      this.host.hints,
    );
    this.set(
      {
        name: this.name,
        state: 'failed',
        error,
        failure: error.failure,
        nextStep: error.nextStep,
        ...(exitCode !== undefined ? { exitCode } : {}),
        ...(stderrTail ? { stderrTail } : {}),
      },
      'crash loop: held until started again by the host',
    );
  }

  /** The connection ended without us asking. */
  private onDrop(cause: Error | undefined, generation: number): void {
    if (generation !== this.generation || this.closed) return;
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.transport = undefined;
    if (this.resetTimer !== undefined) this.host.clock.clearTimeout(this.resetTimer);
    client?.close().catch(() => {});
    if (this.host.clock.now() - this.connectedAt >= this.host.reconnect.resetAfterMs)
      this.attempt = 0;
    if (this.isStdio) {
      const verdict = cause
        ? classifyFailure(this.name, this.server, cause, this.host.hints)
        : undefined;
      const exitCode = verdict?.state === 'failed' ? verdict.exitCode : undefined;
      const stderrTail = verdict?.state === 'failed' ? verdict.stderrTail : undefined;
      if (this.breaker.recordExit(this.startedAt)) {
        this.trip(exitCode, stderrTail);
        return;
      }
    }
    this.schedule(cause?.message ?? 'the connection closed', cause);
  }

  private schedule(reason: string, cause?: unknown): void {
    if (this.closed) return;
    // The attempt that called this has decided: a timer that fires before its promise
    // settles must be free to start the next one.
    this.inflight = undefined;
    this.attempt++;
    const delayMs = reconnectDelay(this.attempt, this.host.reconnect, this.host.clock.random);
    const nextRetryAt = this.host.clock.now() + delayMs;
    this.clearRetry();
    this.retryTimer = this.host.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (this.closed || this.inflight) return;
      this.startRun('retry', `reconnect attempt ${this.attempt}`);
    }, delayMs);
    this.set(
      {
        name: this.name,
        state: 'pending',
        reconnectAttempt: this.attempt,
        maxReconnectAttempts: this.host.reconnect.fastAttempts,
        nextRetryAt,
        reason: cut(reason, 500),
      },
      `reconnecting in ${delayMs} ms`,
    );
    this.watchReachability(cause ?? new Error(reason));
  }

  /**
   * While a remote server refuses connections (fast phase only), a TCP check every 250 ms
   * starts the next attempt as soon as its port accepts again: a restarted server is back
   * in moments rather than at the next backoff slot. Only a refused or unreachable failure
   * arms it, so a server that accepts TCP but fails MCP gets no more attempts than the
   * backoff allows.
   */
  private watchReachability(cause: unknown): void {
    const intervalMs = this.host.reconnect.reachabilityProbeMs;
    const endpoint = endpointOf(urlOf(this.server.config));
    if (!endpoint || intervalMs <= 0 || this.attempt > this.host.reconnect.fastAttempts) return;
    if (!isConnectionLost(cause)) return;
    const generation = this.generation;
    watchUntilOpen(endpoint, intervalMs, {
      clock: this.host.clock,
      waiting: () =>
        !this.closed &&
        generation === this.generation &&
        this.retryTimer !== undefined &&
        !this.inflight,
      ontimer: (handle) => {
        this.probeTimer = handle;
      },
      onopen: () => {
        this.clearRetry();
        this.startRun('retry', 'the server accepts connections again');
      },
    });
  }
}

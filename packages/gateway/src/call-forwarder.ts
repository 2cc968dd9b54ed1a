import { randomUUID } from 'node:crypto';
import type { InputRoundOptions, McpClient } from '@mcpkit/client';
import { ConnectionClosedError, HttpError, RpcError } from '@mcpkit/jsonrpc';
import type { McpManager } from '@mcpkit/manager';
import type { InputRequiredResult } from '@mcpkit/protocol';
import {
  type HandlerContext,
  type InputRequest,
  type InputRequiredReturn,
  inputRequired,
} from '@mcpkit/server';
import { ResumableCall } from './resumable-call.js';
import { callOptions, InflightCalls, isInputRound } from './routing.js';

export interface CallForwarderOptions {
  manager: McpManager;
  /** Bounds a call, and how long a parked 2026-07-28 call waits for the client's retry. */
  callTimeoutMs: number;
  /** How long a forwarded tools/call may run before its SSE stream is closed for polling. */
  ssePollAfterMs?: number;
  /** A backend's failure in the host's words (see `GatewayOptions.describeError`). */
  describeError?: (error: unknown, server: string) => string | undefined;
}

/**
 * The gateway's forwarded calls: each runs on its backend's client (waiting for a backend
 * that is coming back), stays findable while it runs (a backend's own requests are routed
 * to it), and in the 2026-07-28 era may park on such a request until the client's retry.
 */
export class CallForwarder {
  /** The calls running on each backend, newest last: where its requests go. */
  readonly inflight = new InflightCalls();
  /** Calls parked for a 2026-07-28 client's next round, by the ticket in its requestState. */
  private readonly tickets = new Map<
    string,
    { call: ResumableCall<unknown>; timer: NodeJS.Timeout }
  >();

  constructor(private readonly options: CallForwarderOptions) {}

  /** Fails every parked call (the gateway is closing). */
  close(): void {
    for (const { call, timer } of this.tickets.values()) {
      clearTimeout(timer);
      call.fail(new Error('mcpkit gateway: closing'));
    }
    this.tickets.clear();
  }

  /**
   * Runs the request on the backend's client: at once when the backend is up (no promise
   * before the call), else once it is back, bounded by the call's timeout. A request that
   * never reached the backend (see `resend`) goes to its next connection.
   */
  private forwardCall<T>(
    server: string,
    call: ResumableCall<T | InputRequiredResult>,
    run: (client: McpClient, options: InputRoundOptions) => Promise<T | InputRequiredResult>,
    repeatable: boolean,
  ): Promise<T | InputRequiredResult> {
    const { manager, callTimeoutMs } = this.options;
    const startedAt = Date.now();
    const now = manager.clientNow(server);
    const again = { server, call, run, repeatable, startedAt };
    const resend = (error: unknown) => this.resend(again, error, now);
    if (now) return run(now, callOptions(call, now, callTimeoutMs)).catch(resend);
    return manager
      .client(server, { signal: call.signal, timeoutMs: callTimeoutMs, waitForReconnect: true })
      .then((client) =>
        run(client, callOptions(call, client, callTimeoutMs)).catch((error: unknown) =>
          this.resend(again, error, client),
        ),
      );
  }

  /**
   * SERVE.md's rule for a backend that dies under a call. A request known never to have
   * reached the backend — its connection was already closed, its write failed with the
   * request unwritten, or an HTTP backend refused the connection — waits for the backend's
   * next connection and goes there, within what is left of the call's timeout. A request
   * that may have reached it (written, then the connection closed before any answer) goes
   * again only when it is `repeatable`: a read (prompt, resource, completion) or a tool the
   * backend marks `readOnlyHint` or `idempotentHint`; any other tool may not be idempotent,
   * so its error stands.
   */
  private async resend<T>(
    again: {
      server: string;
      call: ResumableCall<T | InputRequiredResult>;
      run: (client: McpClient, options: InputRoundOptions) => Promise<T | InputRequiredResult>;
      repeatable: boolean;
      startedAt: number;
    },
    error: unknown,
    used: McpClient | undefined,
  ): Promise<T | InputRequiredResult> {
    const { manager, callTimeoutMs } = this.options;
    const { server, call, run, repeatable, startedAt } = again;
    let sameClientAgain = true;
    for (;;) {
      const unsent = neverSent(error);
      if (!unsent && !(repeatable && lostBeforeAnswer(error))) throw error;
      if (call.signal.aborted || call.ctx.cancellation?.aborted) throw error;
      // Supervision hears of it (a refused HTTP backend is dropped at once): the wait below
      // is for the reconnect, not for the dead connection again.
      manager.noteCallError(server, error);
      const leftMs = startedAt + callTimeoutMs - Date.now();
      if (leftMs <= 0) throw error;
      const client = await manager.client(server, {
        signal: call.signal,
        timeoutMs: leftMs,
        waitForReconnect: true,
      });
      // The manager still holds the connection that failed (an HTTP backend whose drop it has
      // not seen yet): it gets one more request, no more.
      if (client === used) {
        if (!sameClientAgain) throw error;
        sameClientAgain = false;
      }
      used = client;
      try {
        return await run(client, callOptions(call, client, leftMs));
      } catch (next) {
        error = next;
      }
    }
  }

  /**
   * `ssePollAfterMs`: a forwarded tools/call still running after that long has its SSE
   * stream closed (the client resumes it). The binding ignores this outside 2025-11-25 HTTP
   * sessions (stdio, JSON-only, 2026-07-28).
   */
  private pollTimer(ctx: HandlerContext): NodeJS.Timeout | undefined {
    const poll = this.options.ssePollAfterMs;
    return poll !== undefined && ctx.method === 'tools/call'
      ? setTimeout(() => ctx.closeSseStream(), poll)
      : undefined;
  }

  /**
   * A 2025-era call: it never parks (its client is asked directly through `ctx.request`),
   * so it needs no step machine, only the SSE-polling timer when one is configured. Not
   * `async`, and one `then` for the backend's answer: its resend on a failure, the untracking
   * and `describeError`'s words all hang on it.
   */
  private callNow<T>(
    server: string,
    ctx: HandlerContext,
    run: (client: McpClient, options: InputRoundOptions) => Promise<T | InputRequiredResult>,
    repeatable: boolean,
  ): Promise<T> {
    const call = new ResumableCall<T | InputRequiredResult>(ctx);
    this.inflight.track(server, call as ResumableCall<unknown>);
    const pollTimer = this.pollTimer(ctx);
    const done = () => {
      if (pollTimer !== undefined) clearTimeout(pollTimer);
      this.inflight.untrack(server, call as ResumableCall<unknown>);
    };
    const { manager, callTimeoutMs } = this.options;
    const startedAt = Date.now();
    const now = manager.clientNow(server);
    let sent: Promise<T | InputRequiredResult>;
    try {
      sent = now
        ? run(now, callOptions(call, now, callTimeoutMs))
        : this.forwardCall(server, call, run, repeatable);
    } catch (error) {
      sent = Promise.reject(error);
    }
    return sent.then(
      (value) => {
        done();
        return value as T;
      },
      (error: unknown) => {
        // The backend that was up failed the call: `resend`'s rule (`forwardCall` applied
        // it already to a call that waited for its backend).
        const again = now
          ? this.resend({ server, call, run, repeatable, startedAt }, error, now)
          : Promise.reject(error);
        return again.then(
          (value) => {
            done();
            return value as T;
          },
          (final: unknown) => {
            done();
            throw this.worded(final, server);
          },
        );
      },
    );
  }

  /**
   * Runs one forwarded request: waits for a reconnecting backend (bounded by the call's
   * timeout), passes cancellation and progress through, and keeps the call findable for the
   * backend's own requests while it runs.
   */
  call<T>(
    server: string,
    ctx: HandlerContext,
    run: (client: McpClient, options: InputRoundOptions) => Promise<T | InputRequiredResult>,
    repeatable = true,
  ): Promise<T | InputRequiredReturn> {
    // A 2025-era call words its failure itself (in the `then` it has anyway).
    if (ctx.era !== 'modern') return this.callNow(server, ctx, run, repeatable);
    const called = this.callModern(server, ctx, run, repeatable);
    if (!this.options.describeError) return called;
    return called.catch((error: unknown) => {
      throw this.worded(error, server);
    });
  }

  /**
   * The failure the client is given: `describeError`'s words when it has some, on an error
   * of the same kind (an `RpcError` stays one, with its code and data; anything else becomes
   * a tool result's text), the backend's error as its cause.
   */
  worded(error: unknown, server: string): unknown {
    const text = this.options.describeError?.(error, server);
    if (text === undefined) return error;
    if (RpcError.isInstance(error)) return new RpcError(error.rpcCode, text, error.data);
    return new Error(text, { cause: error });
  }

  /** A 2026-07-28 call: it may park on a backend's request and resume on the client's retry. */
  private async callModern<T>(
    server: string,
    ctx: HandlerContext,
    run: (client: McpClient, options: InputRoundOptions) => Promise<T | InputRequiredResult>,
    repeatable: boolean,
  ): Promise<T | InputRequiredReturn> {
    const { callTimeoutMs } = this.options;
    const ticket = (ctx.requestState as { gatewayTicket?: unknown } | undefined)?.gatewayTicket;
    const parked = typeof ticket === 'string' ? this.tickets.get(ticket) : undefined;
    let call: ResumableCall<T | InputRequiredResult>;
    if (parked) {
      this.tickets.delete(ticket as string);
      clearTimeout(parked.timer);
      call = parked.call as ResumableCall<T | InputRequiredResult>;
      call.attach(ctx);
      call.answer(ctx.inputResponses);
    } else {
      call = new ResumableCall<T | InputRequiredResult>(ctx);
      this.inflight.track(server, call as ResumableCall<unknown>);
      const untrack = () => this.inflight.untrack(server, call as ResumableCall<unknown>);
      call.result = this.forwardCall(server, call, run, repeatable);
      call.result.then(untrack, untrack);
    }
    const pollTimer = this.pollTimer(ctx);
    const step = await call.next().finally(() => clearTimeout(pollTimer));
    if ('value' in step) {
      const value = step.value;
      if (!isInputRound(value)) return value;
      // The backend's state rides inside the gateway's own sealed requestState.
      return inputRequired({
        ...(value.inputRequests !== undefined
          ? { inputRequests: value.inputRequests as Record<string, InputRequest> }
          : {}),
        ...(value.requestState !== undefined
          ? { requestState: { backendState: value.requestState } }
          : {}),
      });
    }
    const id = randomUUID();
    const timer = setTimeout(() => {
      this.tickets.delete(id);
      call.fail(
        new RpcError(
          -32603,
          `mcpkit gateway: the client did not answer server "${server}" within ${callTimeoutMs} ms`,
        ),
      );
    }, callTimeoutMs);
    timer.unref();
    this.tickets.set(id, { call: call as ResumableCall<unknown>, timer });
    return inputRequired({
      inputRequests: step.inputRequests,
      requestState: { gatewayTicket: id },
    });
  }
}

/** The request is known not to have reached the backend: sending it again cannot run it twice. */
function neverSent(error: unknown): boolean {
  if (ConnectionClosedError.isInstance(error)) return error.unsent;
  // The connection was refused: the POST never left (an HTTP transport's status 0 is its own).
  return (
    HttpError.isInstance(error) &&
    error.status === 0 &&
    (error.cause as { code?: unknown } | undefined)?.code === 'ECONNREFUSED'
  );
}

/**
 * The connection ended before any answer, after the request may have gone out: a close
 * while waiting, or a network failure of an HTTP backend (status 0). Not a timeout.
 */
function lostBeforeAnswer(error: unknown): boolean {
  return (
    ConnectionClosedError.isInstance(error) || (HttpError.isInstance(error) && error.status === 0)
  );
}

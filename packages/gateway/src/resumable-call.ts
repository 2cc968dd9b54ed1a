import { type JsonRpcId, RpcError } from '@mcpkit/jsonrpc';
import type { HandlerContext, InputRequest } from '@mcpkit/server';

const NO_IDS: ReadonlySet<JsonRpcId> = new Set();

type Step<T> = { value: T } | { inputRequests: Record<string, InputRequest> };

interface Asked {
  request: InputRequest;
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
  sent: boolean;
}

/**
 * One call forwarded to a backend, which may outlive the client's request that started it:
 * on 2026-07-28 the client cannot be asked anything mid-call, so a backend's request
 * (elicitation, sampling, roots) is parked, the client gets an `input_required` result, and
 * its retry (carrying the answers) resumes the same backend call. The call's signal follows
 * whichever client request is attached; a parked call is not cancelled by its request's end.
 */
export class ResumableCall<T> {
  ctx: HandlerContext;
  result!: Promise<T>;
  /**
   * Who made the call: a 2025 HTTP session, the stdio client, or (2026-07-28, stateless)
   * the call itself. A backend request no transport ties to a call goes to it only when
   * it is the one caller with calls running on that backend.
   */
  readonly owner: unknown;
  /**
   * How many of the backend's requests this call's client has not answered yet. A backend
   * request that names no call is not routed to a call that is asking (see `originOf`).
   */
  asking = 0;
  /** Made on the first id: only a call whose client can answer a backend's requests notes any. */
  private ids: Set<JsonRpcId> | undefined;
  /** Only a 2026-07-28 call can park and outlive its request; a 2025-era one uses its signal. */
  private controller: AbortController | undefined;
  /** Made on the first `ask` (2026-07-28 only): most calls never ask anything. */
  private asked: Map<string, Asked> | undefined;
  private counter = 0;
  private wake: (() => void) | undefined;
  private parked = false;
  private detach: (() => void) | undefined;

  constructor(ctx: HandlerContext) {
    this.ctx = ctx;
    this.owner = ctx.era === 'modern' ? this : (ctx.sessionId ?? 'stdio');
    // A 2025-era client is asked directly (ctx.request), so its call never parks and the
    // request's own signal is the call's: no controller or listener per forwarded call.
    if (ctx.era === 'modern') this.attach(ctx);
  }

  /** The ids of the backend requests made for this call (an HTTP backend's requests name them). */
  get backendIds(): ReadonlySet<JsonRpcId> {
    return this.ids ?? NO_IDS;
  }

  addBackendId(id: JsonRpcId): void {
    this.ids ??= new Set();
    this.ids.add(id);
  }

  get signal(): AbortSignal {
    return this.controller?.signal ?? this.ctx.signal;
  }

  /** The client's request now driving the call (the first, or a retry with answers). */
  attach(ctx: HandlerContext): void {
    this.detach?.();
    this.controller ??= new AbortController();
    const controller = this.controller;
    this.ctx = ctx;
    this.parked = false;
    const onAbort = () => {
      if (!this.parked && this.ctx === ctx) controller.abort(ctx.signal.reason);
    };
    if (ctx.signal.aborted) onAbort();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    this.detach = () => ctx.signal.removeEventListener('abort', onAbort);
  }

  /** A backend's request for the client: answered on the client's next round. */
  ask(method: InputRequest['method'], params: Record<string, unknown>): Promise<unknown> {
    const key = `gw${++this.counter}`;
    this.asked ??= new Map();
    const asked = this.asked;
    return new Promise((resolve, reject) => {
      asked.set(key, { request: { method, params }, resolve, reject, sent: false });
      // Requests the backend makes together go out in one round.
      setImmediate(() => this.wake?.());
    });
  }

  /** Runs until the backend answers or needs input from the client. */
  async next(): Promise<Step<T>> {
    const unsent = () =>
      Object.fromEntries(
        [...(this.asked ?? [])].filter(([, a]) => !a.sent).map(([k, a]) => [k, a.request] as const),
      );
    const needInput = new Promise<'input'>((resolve) => {
      this.wake = () => resolve('input');
      if (Object.keys(unsent()).length > 0) setImmediate(() => resolve('input'));
    });
    const first = await Promise.race([this.result.then((value) => ({ value })), needInput]);
    this.wake = undefined;
    if (first !== 'input') return first;
    const inputRequests = unsent();
    for (const key of Object.keys(inputRequests)) this.asked!.get(key)!.sent = true;
    this.parked = true;
    return { inputRequests };
  }

  /** The client's answers (its retry's `inputResponses`) to what was asked. */
  answer(responses: Record<string, Record<string, unknown>> | undefined): void {
    for (const [key, asked] of this.asked ?? []) {
      if (!asked.sent) continue;
      this.asked!.delete(key);
      const answer = responses?.[key];
      if (answer) asked.resolve(answer);
      else
        asked.reject(
          new RpcError(
            -32602,
            `mcpkit gateway: the client's retry did not answer "${asked.request.method}"`,
          ),
        );
    }
  }

  /** Ends a parked call whose client never came back. */
  fail(error: Error): void {
    for (const asked of this.asked?.values() ?? []) asked.reject(error);
    this.asked?.clear();
    this.controller?.abort(error);
  }
}

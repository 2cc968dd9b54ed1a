import type { CallOptions, InputRoundOptions, McpClient } from '@mcpkit/client';
import { type JsonRpcId, type Progress, RpcError } from '@mcpkit/jsonrpc';
import type { ClientCapabilities, InputRequiredResult } from '@mcpkit/protocol';
import type { HandlerContext } from '@mcpkit/server';
import type { ResumableCall } from './resumable-call.js';

/** Error code of a server→client request the gateway's client cannot answer. */
const NOT_FORWARDABLE = -32601;
/** Error code of a request for a mode or feature the client did not declare. */
const INVALID_PARAMS = -32602;

/** A backend's `input_required` round, handed back by the client (`inputRequired: 'return'`). */
export function isInputRound(value: unknown): value is InputRequiredResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { resultType?: unknown }).resultType === 'input_required'
  );
}

/**
 * The per-request options of a call to a 2026-07-28 backend: the caller's capabilities, and
 * its answers and the backend's state from the previous round (a retry).
 */
export function modernRound(ctx: HandlerContext): Omit<InputRoundOptions, keyof CallOptions> & {
  clientCapabilities: HandlerContext['clientCapabilities'];
} {
  const backendState = (ctx.requestState as { backendState?: unknown } | undefined)?.backendState;
  return {
    inputRequired: 'return',
    clientCapabilities: ctx.clientCapabilities,
    ...(ctx.inputResponses !== undefined ? { inputResponses: ctx.inputResponses } : {}),
    ...(typeof backendState === 'string' ? { requestState: backendState } : {}),
  };
}

/** Whether the caller declared something a backend's request could be forwarded to. */
export function asksBack(ctx: HandlerContext): boolean {
  const caps = ctx.clientCapabilities;
  return caps.elicitation !== undefined || caps.sampling !== undefined || caps.roots !== undefined;
}

/**
 * The call a backend's request belongs to. An HTTP backend names it (the request arrives
 * on the response stream of the gateway's request for that call). Otherwise (stdio) it is
 * the newest call running on that backend when all the candidates come from one client;
 * with calls from several clients the request is refused, so it can never reach the wrong
 * one. The candidates leave out the calls whose client is still being asked something by
 * this backend (a backend's tool waits for the answer before it asks again), so that a
 * client that never answers blocks no other client; the calls of one client that are all
 * asking stay candidates. Outside any call it is refused here: the stdio face, with its
 * one client, answers such a request before it gets here (`SoleClient`); the HTTP face has
 * no client to choose.
 */
export function originOf(
  calls: ReadonlyArray<ResumableCall<unknown>>,
  server: string,
  method: string,
  capability: 'elicitation' | 'sampling' | 'roots',
  relatedRequestId: JsonRpcId | undefined,
  params: Record<string, unknown> = {},
): ResumableCall<unknown> {
  let call =
    relatedRequestId === undefined
      ? undefined
      : calls.find((c) => c.backendIds.has(relatedRequestId));
  if (!call) {
    if (calls.length === 0)
      throw new RpcError(
        NOT_FORWARDABLE,
        `mcpkit gateway: "${method}" from server "${server}" arrived outside any call; over HTTP each client has its own session and none is the one to ask, so the gateway forwards it only during a call from a client that declared "${capability}"`,
      );
    const free = calls.filter((c) => c.asking === 0);
    const candidates = free.length > 0 ? free : calls;
    if (new Set(candidates.map((c) => c.owner)).size > 1)
      throw new RpcError(
        NOT_FORWARDABLE,
        `mcpkit gateway: "${method}" from server "${server}" does not say which call it belongs to, and calls from several clients are running on it; refused so that it cannot reach the wrong client (an HTTP backend's requests name their call)`,
      );
    call = candidates[candidates.length - 1]!;
  }
  if (call.ctx.clientCapabilities[capability] === undefined)
    throw new RpcError(
      NOT_FORWARDABLE,
      `mcpkit gateway: the client calling server "${server}" did not declare the "${capability}" capability, so "${method}" cannot be forwarded; use a client that supports ${capability}`,
    );
  refuseUndeclared(server, method, params, call.ctx.clientCapabilities, 'the client calling');
  return call;
}

/**
 * The gateway declares to its backends everything it can forward (form and URL
 * elicitation, sampling with tools, roots), so a backend may ask for what the calling
 * client lacks: such a request is refused with -32602 (the spec's error for an elicitation
 * mode the client did not declare), naming what is missing. `elicitation: {}` means form only.
 */
export function refuseUndeclared(
  server: string,
  method: string,
  params: Record<string, unknown>,
  caps: ClientCapabilities,
  who: string,
): void {
  let missing: string | undefined;
  if (method === 'elicitation/create') {
    const declared = (caps.elicitation ?? {}) as Record<string, unknown>;
    const mode = params.mode === undefined ? 'form' : String(params.mode);
    const modes = Object.keys(declared).length === 0 ? ['form'] : Object.keys(declared);
    if (!modes.includes(mode)) missing = `elicitation.${mode}`;
  } else if (method === 'sampling/createMessage') {
    const sampling = (caps.sampling ?? {}) as Record<string, unknown>;
    if ((params.tools !== undefined || params.toolChoice !== undefined) && !sampling.tools)
      missing = 'sampling.tools';
    else if (
      params.includeContext !== undefined &&
      params.includeContext !== 'none' &&
      !sampling.context
    )
      missing = 'sampling.context';
  }
  if (missing !== undefined)
    throw new RpcError(
      INVALID_PARAMS,
      `mcpkit gateway: ${who} server "${server}" did not declare the "${missing}" capability, so this "${method}" cannot be forwarded to it`,
      { missingCapability: missing },
    );
}

/**
 * The call a backend's log message (`notifications/message`) goes to. An HTTP backend
 * sends it on the response stream of the gateway's request for a call, which names the
 * call: to that call's client only (none when the call it names is over, or is not one of
 * the gateway's forwarded calls). A message that names no call (stdio, or a backend's
 * standalone stream) goes to the client with calls running on that backend when all of
 * them are one client's (its newest call), and to no client when calls of several clients
 * are running, or none: never to a client it may not belong to.
 */
export function logTarget(
  calls: ReadonlyArray<ResumableCall<unknown>>,
  relatedRequestId: JsonRpcId | undefined,
): ResumableCall<unknown> | undefined {
  if (relatedRequestId !== undefined) return calls.find((c) => c.backendIds.has(relatedRequestId));
  if (calls.length === 0) return undefined;
  const newest = calls[calls.length - 1]!;
  for (const call of calls) if (call.owner !== newest.owner) return undefined;
  return newest;
}

/**
 * The options of one forwarded request, with only what this call needs: a progress handler
 * when the client sent a token, request ids when the client can answer a backend's
 * requests, and the caller's capabilities for a 2026-07-28 backend. Its input rounds pass
 * through raw only to a 2026-07-28 caller; for a 2025 caller the backend's client answers
 * them itself, asking the caller through the handlers (such calls never park).
 */
export function callOptions(
  call: ResumableCall<unknown>,
  client: McpClient,
  timeoutMs: number,
): InputRoundOptions {
  const { ctx } = call;
  // A 2025-era call follows its request's cancellation without an AbortSignal; a
  // 2026-07-28 one can outlive its request, so it has a signal of its own.
  const modernCall = ctx.era === 'modern';
  const wantsProgress = ctx.meta?.progressToken !== undefined;
  // The backend's requests and log messages over HTTP name the request they belong to: its
  // ids are noted when the client can answer requests, or the backend may log.
  const answers = asksBack(ctx) || client.serverCapabilities?.logging !== undefined;
  if (!wantsProgress && !answers && client.era !== 'modern')
    return (
      modernCall
        ? { signal: call.signal, timeoutMs, resetTimeoutOnProgress: false }
        : { cancellation: ctx.cancellation, timeoutMs, resetTimeoutOnProgress: false }
    ) as InputRoundOptions;
  return {
    ...(modernCall ? { signal: call.signal } : { cancellation: ctx.cancellation }),
    timeoutMs,
    resetTimeoutOnProgress: wantsProgress,
    ...(wantsProgress
      ? { onprogress: (p: Progress) => void call.ctx.progress(p).catch(() => {}) }
      : {}),
    ...(answers ? { onid: (id: JsonRpcId) => call.addBackendId(id) } : {}),
    ...(client.era !== 'modern'
      ? {}
      : ctx.era === 'modern'
        ? modernRound(ctx)
        : { clientCapabilities: ctx.clientCapabilities }),
  } as InputRoundOptions;
}

/** The gateway calls running on each backend, newest last: where a backend's requests go. */
export class InflightCalls {
  private readonly calls = new Map<string, Array<ResumableCall<unknown>>>();

  of(server: string): ReadonlyArray<ResumableCall<unknown>> {
    return this.calls.get(server) ?? [];
  }

  /** Keeps a call findable while it runs (until `untrack`). */
  track(server: string, call: ResumableCall<unknown>): void {
    const list = this.calls.get(server);
    if (list) list.push(call);
    else this.calls.set(server, [call]);
  }

  untrack(server: string, call: ResumableCall<unknown>): void {
    const list = this.calls.get(server);
    if (!list) return;
    // Calls mostly end in the order they started: the search is short.
    const at = list.lastIndexOf(call);
    if (at >= 0) list.splice(at, 1);
    // An empty list stays: one per backend, reused by its next call.
  }
}

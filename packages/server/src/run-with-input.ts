import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import { checkCapabilities } from './check-capabilities.js';
import { invalidParams } from './errors.js';
import type { McpServer } from './mcp-server.js';
import { withInput } from './request-context.js';
import type { HandlerContext, InputRequest, InputRequiredReturn } from './types.js';

/** What each kind of input request needs the client to have declared. */
const CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

function isInputRequired(value: unknown): value is InputRequiredReturn {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { resultType?: unknown }).resultType === 'input_required'
  );
}

/** Builds the result a handler returns when it needs the client's input (2026-07-28 MRTR). */
export function inputRequired(input: {
  inputRequests?: Record<string, InputRequest>;
  requestState?: unknown;
}): InputRequiredReturn {
  return { resultType: 'input_required', ...input };
}

function readInputResponses(value: unknown): Record<string, Record<string, unknown>> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParams('inputResponses must be an object keyed by the inputRequests keys');
  }
  for (const [key, answer] of Object.entries(value)) {
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
      throw invalidParams(`inputResponses["${key}"] must be a result object`);
    }
  }
  return value as Record<string, Record<string, unknown>>;
}

/** A value that may be awaited (a handler's promise, or any thenable). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Runs a handler that may answer `input_required`. In the 2026-07-28 era the result goes
 * back to the client (its `requestState` sealed) and the client retries; in the 2025 eras
 * the server asks the client itself, request by request, and runs the handler again with
 * the answers, so one handler serves both eras. A plain request (no answers, no state) is
 * one call of the handler and, when it answers with a promise, one `then`: its result or
 * promise comes back as it is.
 */
export function runWithInput(
  server: McpServer,
  params: Record<string, unknown>,
  ctx: HandlerContext,
  name: string,
  invoke: (ctx: HandlerContext) => unknown,
  /** Turns a failure (a rejection, not a synchronous throw) into the answer: one promise layer for both. */
  onError?: (error: unknown) => unknown,
  /** Turns the final result into the answer (a tool's task), in the same promise layer. */
  settle?: (result: unknown) => unknown,
): unknown {
  if (params.inputResponses === undefined && params.requestState === undefined) {
    const first = invoke(ctx);
    if (isThenable(first)) {
      return Promise.resolve(first).then(
        (result) =>
          isInputRequired(result)
            ? more(server, ctx, name, invoke, onError, settle, result)
            : settle
              ? settle(result)
              : result,
        onError,
      );
    }
    if (isInputRequired(first)) return more(server, ctx, name, invoke, onError, settle, first);
    return settle ? settle(first) : first;
  }
  const inputResponses = readInputResponses(params.inputResponses);
  const requestState =
    params.requestState === undefined
      ? undefined
      : server.seal.open(params.requestState, ctx.method, name);
  return more(server, ctx, name, invoke, onError, settle, NOT_RUN, inputResponses, requestState);
}

/**
 * The rounds after an input_required result (or from a client's retry), with `settle` and
 * `onError` in the same chain. A function of its own, not a closure made for every request:
 * most requests never get here.
 */
function more(
  server: McpServer,
  ctx: HandlerContext,
  name: string,
  invoke: (ctx: HandlerContext) => unknown,
  onError: ((error: unknown) => unknown) | undefined,
  settle: ((result: unknown) => unknown) | undefined,
  result: unknown,
  answers?: Record<string, Record<string, unknown>>,
  state?: unknown,
): Promise<unknown> {
  const done = rounds(server, ctx, name, invoke, answers, state, result);
  const rest = settle ? done.then(settle) : done;
  return onError ? rest.then(undefined, onError) : rest;
}

/** `rounds`' `first` when the handler has not run yet. */
const NOT_RUN: unique symbol = Symbol('not run');

async function rounds(
  server: McpServer,
  ctx: HandlerContext,
  name: string,
  invoke: (ctx: HandlerContext) => unknown,
  answers: Record<string, Record<string, unknown>> | undefined,
  state: unknown,
  first: unknown,
): Promise<unknown> {
  let inputResponses = answers;
  let requestState = state;
  for (let round = 0; ; round++) {
    const result =
      round === 0 && first !== NOT_RUN
        ? first
        : await invoke(
            // A round with nothing to add needs no copy of the context.
            inputResponses === undefined && requestState === undefined
              ? ctx
              : withInput(ctx, inputResponses, requestState),
          );
    if (!isInputRequired(result)) return result;
    if (result.inputRequests === undefined && result.requestState === undefined) {
      throw new Error(
        `${ctx.method} "${name}": an input_required result needs inputRequests or requestState`,
      );
    }
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
      const capability = CAPABILITY_OF[request?.method];
      if (!capability) {
        throw new Error(
          `${ctx.method} "${name}": input request "${key}" has unknown method ${JSON.stringify(request?.method)}`,
        );
      }
      checkCapabilities({ [capability]: {} }, ctx, `${ctx.method} "${name}"`);
    }
    if (ctx.era === 'modern') {
      const out: Record<string, unknown> = { resultType: 'input_required' };
      if (result.inputRequests) out.inputRequests = result.inputRequests;
      if (result.requestState !== undefined) {
        out.requestState = server.seal.seal(result.requestState, ctx.method, name);
      }
      return out;
    }
    if (round + 1 >= server.maxInputRounds) {
      throw new RpcError(
        RpcErrorCode.InternalError,
        `${ctx.method} "${name}" asked for input ${server.maxInputRounds} times without finishing`,
      );
    }
    // A legacy client is asked directly; answers come back before the handler runs again.
    const answers: Record<string, Record<string, unknown>> = {};
    for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
      answers[key] = await ctx.request(request.method, request.params ?? {});
    }
    inputResponses = answers;
    requestState = result.requestState;
  }
}

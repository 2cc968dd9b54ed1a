import type { ServerRequestContext } from '@mcpkit/client';
import type { ManagerHandlers } from '@mcpkit/manager';
import type { InputRequest } from '@mcpkit/server';
import type { ResumableCall } from './resumable-call.js';
import { originOf } from './routing.js';
import type { SoleClient } from './sole-client.js';

/** Where a backend's requests may go: the calls running on it, over every gateway of a manager. */
export interface BackendRequestRoute {
  calls: ReadonlyArray<ResumableCall<unknown>>;
  /** The listener's one client, for a request that belongs to no call. */
  sole: SoleClient | undefined;
  callTimeoutMs: number;
}

/**
 * The handlers the manager gives each backend's client: its elicitation, sampling and roots
 * requests go to the client whose call caused them (`route`, read at each request).
 */
export function backendRequestHandlers(
  route: (server: string) => BackendRequestRoute,
): (server: string) => ManagerHandlers {
  return (server) => {
    const forward =
      (method: string, capability: 'elicitation' | 'sampling') =>
      async (params: unknown, context: ServerRequestContext) =>
        (await forwardBackendRequest(
          route(server),
          server,
          method,
          capability,
          params,
          context,
        )) as never;
    return {
      // Declared to every backend: all the gateway can forward. Each request is then
      // refused when the calling client lacks what it needs (routing.ts, refuseUndeclared).
      elicitation: forward('elicitation/create', 'elicitation'),
      elicitationModes: ['form', 'url'],
      sampling: forward('sampling/createMessage', 'sampling'),
      samplingTools: true,
      roots: async (context) => {
        const answer = await forwardBackendRequest(
          route(server),
          server,
          'roots/list',
          'roots',
          {},
          {
            ...context,
            signal: AbortSignal.any([context.signal, AbortSignal.timeout(60_000)]),
          },
        );
        return ((answer as { roots?: unknown[] } | undefined)?.roots ?? []) as never;
      },
    };
  };
}

/**
 * A backend's request, forwarded to the client whose call caused it, among the calls of
 * every gateway over one manager (one per endpoint).
 */
export async function forwardBackendRequest(
  route: BackendRequestRoute,
  server: string,
  method: string,
  capability: 'elicitation' | 'sampling' | 'roots',
  params: unknown,
  context: ServerRequestContext,
): Promise<unknown> {
  const { calls, sole } = route;
  const body = (params ?? {}) as Record<string, unknown>;
  // No call to tie it to (a backend asking for roots at its start): only a face with one
  // client can still answer it.
  if (calls.length === 0 && sole) return sole.ask(server, method, capability, body, context.signal);
  const call = originOf(calls, server, method, capability, context.relatedRequestId, body);
  // While its client has not answered, the call is "asking": a backend request that names
  // no call is not given to it (routing.ts), so one silent client blocks no other.
  call.asking++;
  const done = () => {
    call.asking--;
  };
  // 2026-07-28 clients are asked through an input_required result and their retry.
  if (call.ctx.era === 'modern') {
    const asked = call.ask(method as InputRequest['method'], body);
    asked.then(done, done);
    return asked;
  }
  // Bounded by the call's own timeout and ended by its cancellation or its client's
  // disconnect (the request's signal), whichever comes first: for that call only.
  const signal = AbortSignal.any([
    context.signal,
    call.signal,
    AbortSignal.timeout(route.callTimeoutMs),
  ]);
  const answered = Promise.race([
    call.ctx.request(method, body),
    new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    }),
  ]);
  answered.then(done, done);
  return answered;
}

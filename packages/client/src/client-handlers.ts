import {
  ErrorCode,
  type JsonRpcId,
  type JsonRpcPeer,
  McpkitError,
  type RequestContext,
} from '@mcpkit/jsonrpc';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root,
} from '@mcpkit/protocol';
import { MissingHandlerError } from './errors.js';

/**
 * What a handler learns of the server's request besides its params. `relatedRequestId`:
 * over HTTP, the id of this client's own request on whose response stream it arrived (the
 * call that caused it; see `CallOptions.onid`); undefined when the transport cannot tell.
 */
export interface ServerRequestContext {
  signal: AbortSignal;
  relatedRequestId?: JsonRpcId;
}

/** What the host can do for servers. Each handler present declares its capability. */
export interface ClientHandlers {
  /** Answers `sampling/createMessage` (the server asks the host's model). */
  sampling?: (
    params: CreateMessageRequestParams,
    context: ServerRequestContext,
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Declare `sampling.tools`: the handler understands `tools` and `toolChoice`. */
  samplingTools?: boolean;
  /** Answers `elicitation/create` (the server asks the user). */
  elicitation?: (
    params: ElicitRequestParams,
    context: ServerRequestContext,
  ) => ElicitResult | Promise<ElicitResult>;
  /** Which elicitation modes the host supports. Default `['form']`. */
  elicitationModes?: ReadonlyArray<'form' | 'url'>;
  /** Fill fields the user left out with the `default` of the requested schema. */
  applyElicitationDefaults?: boolean;
  /** Answers `roots/list`. */
  roots?: (context: ServerRequestContext) => Root[] | Promise<Root[]>;
}

/** The capabilities a set of handlers implies, over what the host declared itself. */
export function capabilitiesFor(
  handlers: ClientHandlers | undefined,
  declared: ClientCapabilities = {},
): ClientCapabilities {
  const out: ClientCapabilities = { ...declared };
  if (handlers?.sampling)
    out.sampling = { ...declared.sampling, ...(handlers.samplingTools ? { tools: {} } : {}) };
  if (handlers?.elicitation) {
    const modes = handlers.elicitationModes ?? ['form'];
    out.elicitation = { ...declared.elicitation, ...Object.fromEntries(modes.map((m) => [m, {}])) };
  }
  if (handlers?.roots) out.roots = { ...declared.roots, listChanged: true };
  return out;
}

type Schema = { properties?: Record<string, { default?: unknown }> };

function withDefaults(params: ElicitRequestParams, result: ElicitResult): ElicitResult {
  if (result.action !== 'accept' || !('requestedSchema' in params)) return result;
  const properties = (params.requestedSchema as Schema).properties ?? {};
  const content: Record<string, unknown> = { ...result.content };
  for (const [key, schema] of Object.entries(properties)) {
    if (content[key] === undefined && schema && schema.default !== undefined)
      content[key] = schema.default;
  }
  return { ...result, content: content as ElicitResult['content'] };
}

/**
 * Answers one server-to-client request with the host's handlers: the legacy era's
 * requests on the wire and the 2026-07-28 era's `inputRequests` take the same path.
 * Throws `MissingHandlerError` when the host registered no handler for it, and a protocol
 * error (`MCPKIT_PROTOCOL_ERROR`) for a method a server may not send a client.
 */
export async function answerServerRequest(
  handlers: ClientHandlers | undefined,
  method: string,
  params: unknown,
  context: ServerRequestContext,
  label: string,
): Promise<unknown> {
  switch (method) {
    case 'sampling/createMessage':
      if (handlers?.sampling)
        return handlers.sampling(params as CreateMessageRequestParams, context);
      break;
    case 'elicitation/create':
      if (handlers?.elicitation) {
        const result = await handlers.elicitation(params as ElicitRequestParams, context);
        return handlers.applyElicitationDefaults
          ? withDefaults(params as ElicitRequestParams, result)
          : result;
      }
      break;
    case 'roots/list':
      if (handlers?.roots) return { roots: await handlers.roots(context) };
      break;
    default:
      throw new McpkitError(
        ErrorCode.Protocol,
        `${label}: the server asked for "${method}", which is not a request a server may send a client`,
      );
  }
  throw new MissingHandlerError(label, String(method));
}

/**
 * Wraps the answering of one server request (the instrumentation's `serverRequest`: a
 * SERVER span on the client side, continuing the server's context from `_meta`).
 */
export type ServerRequestWrapper = (
  method: string,
  params: Record<string, unknown> | undefined,
  id: JsonRpcId,
  answer: () => unknown,
) => unknown;

/** Registers the server-to-client request handlers on a peer. */
export function registerClientHandlers(
  peer: JsonRpcPeer,
  handlers: ClientHandlers | undefined,
  label: string,
  wrap?: ServerRequestWrapper,
): void {
  if (!handlers) return;
  const methods = [
    handlers.sampling && 'sampling/createMessage',
    handlers.elicitation && 'elicitation/create',
    handlers.roots && 'roots/list',
  ];
  for (const method of methods) {
    if (!method) continue;
    const answer = (params: unknown, ctx: RequestContext) =>
      answerServerRequest(
        handlers,
        method,
        params,
        ctx.relatedRequestId === undefined
          ? { signal: ctx.signal }
          : { signal: ctx.signal, relatedRequestId: ctx.relatedRequestId },
        label,
      );
    peer.setRequestHandler(
      method,
      wrap === undefined
        ? answer
        : (params: Record<string, unknown>, ctx: RequestContext) =>
            wrap(method, params, ctx.id, () => answer(params, ctx)),
    );
  }
}

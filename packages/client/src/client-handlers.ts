import type { JsonRpcPeer, RequestContext } from '@mcpkit/jsonrpc';
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root,
} from '@mcpkit/protocol';

/** What the host can do for servers. Each handler present declares its capability. */
export interface ClientHandlers {
  /** Answers `sampling/createMessage` (the server asks the host's model). */
  sampling?: (
    params: CreateMessageRequestParams,
    context: { signal: AbortSignal },
  ) => CreateMessageResult | Promise<CreateMessageResult>;
  /** Declare `sampling.tools`: the handler understands `tools` and `toolChoice`. */
  samplingTools?: boolean;
  /** Answers `elicitation/create` (the server asks the user). */
  elicitation?: (
    params: ElicitRequestParams,
    context: { signal: AbortSignal },
  ) => ElicitResult | Promise<ElicitResult>;
  /** Which elicitation modes the host supports. Default `['form']`. */
  elicitationModes?: ReadonlyArray<'form' | 'url'>;
  /** Fill fields the user left out with the `default` of the requested schema. */
  applyElicitationDefaults?: boolean;
  /** Answers `roots/list`. */
  roots?: () => Root[] | Promise<Root[]>;
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

/** Registers the server-to-client request handlers on a peer. */
export function registerClientHandlers(
  peer: JsonRpcPeer,
  handlers: ClientHandlers | undefined,
): void {
  if (!handlers) return;
  const context = (ctx: RequestContext) => ({ signal: ctx.signal });
  if (handlers.sampling) {
    const sampling = handlers.sampling;
    peer.setRequestHandler('sampling/createMessage', (params: CreateMessageRequestParams, ctx) =>
      sampling(params, context(ctx)),
    );
  }
  if (handlers.elicitation) {
    const elicitation = handlers.elicitation;
    peer.setRequestHandler('elicitation/create', async (params: ElicitRequestParams, ctx) => {
      const result = await elicitation(params, context(ctx));
      return handlers.applyElicitationDefaults ? withDefaults(params, result) : result;
    });
  }
  if (handlers.roots) {
    const roots = handlers.roots;
    peer.setRequestHandler('roots/list', async () => ({ roots: await roots() }));
  }
}

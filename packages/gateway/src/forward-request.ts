import type { InputRoundOptions, McpClient } from '@mcpkit/client';
import type { HandlerContext } from '@mcpkit/server';
import type { AccessControl } from './access/access-control.js';
import type { AccessTarget } from './access/policy.js';
import type { CallForwarder } from './call-forwarder.js';

/** A forwarded request, as the access control sees it. */
export type ForwardTarget = Omit<AccessTarget, 'endpoint'> & {
  method: string;
  params: Record<string, unknown>;
};

/** How a served entry's handler runs its request on the backend's client. */
export type BackendRun = Parameters<CallForwarder['call']>[2];

/** A served entry's way to its backend (`forwardRequest` bound to one gateway). */
export type Forward = (
  target: ForwardTarget,
  ctx: HandlerContext,
  run: BackendRun,
  repeatable?: boolean,
) => Promise<unknown>;

/**
 * A forwarded request: through the access control when there is one (policy, rate limit,
 * audit, the backend's identity headers), else straight to the call forwarder.
 */
export function forwardRequest(
  calls: CallForwarder,
  access: AccessControl | undefined,
  endpoint: string,
  target: ForwardTarget,
  ctx: HandlerContext,
  run: BackendRun,
  repeatable?: boolean,
): Promise<unknown> {
  if (!access) return calls.call(target.server, ctx, run as never, repeatable);
  // Built field by field: a spread of the target (whose shape differs by kind) is slower.
  const call = {
    endpoint,
    server: target.server,
    kind: target.kind,
    name: target.name,
    method: target.method,
    params: target.params,
  };
  return access.run(call, ctx, (headers) =>
    calls.call(
      target.server,
      ctx,
      (headers === undefined
        ? run
        : (client: McpClient, options: InputRoundOptions) =>
            run(client, { ...options, headers })) as never,
      repeatable,
    ),
  );
}

/** `_meta` of the client's request, minus what belongs to the gateway's own hop. */
export function metaOf(ctx: HandlerContext): { _meta?: Record<string, unknown> } {
  if (!ctx.meta) return {};
  const { progressToken: _, ...rest } = ctx.meta;
  // 2026-07-28 request metadata (protocol version, capabilities) is per hop too.
  for (const key of Object.keys(rest))
    if (key.startsWith('io.modelcontextprotocol/')) delete rest[key];
  return Object.keys(rest).length > 0 ? { _meta: rest } : {};
}

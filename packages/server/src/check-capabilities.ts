import { RpcError } from '@mcpkit/jsonrpc';
import { type ClientCapabilities, McpErrorCode } from '@mcpkit/protocol';
import { invalidParams } from './errors.js';
import type { HandlerContext } from './types.js';

/** Refuses a request that needs client capabilities the client did not declare. */
export function checkCapabilities(
  required: ClientCapabilities | undefined,
  ctx: HandlerContext,
  what: string,
): void {
  if (!required) return;
  const missing: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(required)) {
    if ((ctx.clientCapabilities as Record<string, unknown>)[key] === undefined)
      missing[key] = value;
  }
  if (Object.keys(missing).length === 0) return;
  if (ctx.era === 'modern') {
    throw new RpcError(
      McpErrorCode.MissingRequiredClientCapability,
      `Missing required client capability: ${what} needs ${Object.keys(missing).join(', ')}; declare it in the client capabilities`,
      { requiredCapabilities: missing },
    );
  }
  throw invalidParams(
    `${what} needs the client capabilities ${Object.keys(missing).join(', ')}, which this client did not declare`,
    { requiredCapabilities: missing },
  );
}

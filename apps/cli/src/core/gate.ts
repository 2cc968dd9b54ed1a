import type { ResolvedServer, ServerStatus } from '@mcpkit/config';
import { McpkitError } from '@mcpkit/jsonrpc';
import { notStartedHint } from './server-selection.js';

/** The code of `ServerNotEnabledError`. */
export const SERVER_NOT_ENABLED = 'MCPKIT_SERVER_NOT_ENABLED';

/**
 * A command was about to contact (or spawn) a server that is not `enabled`. Its own brand:
 * the manager has a class of the same name (and code), and without one `isInstance` of
 * either class would answer true for the other's errors.
 */
export class ServerNotEnabledError extends McpkitError {
  static readonly brand = 'mcpkit-cli.ServerNotEnabledError';
  override readonly name: string = 'ServerNotEnabledError';

  constructor(
    readonly server: string,
    readonly status: Exclude<ServerStatus, 'enabled'> | string,
    message: string,
  ) {
    super(SERVER_NOT_ENABLED, message);
  }
}

function nextStep(server: ResolvedServer): string {
  switch (server.status) {
    case 'blocked':
      return '; "mcpkit list" shows the policy that blocks it';
    case 'disabled':
      return `; enable it in ${server.source}`;
    default:
      return '';
  }
}

/**
 * The one check between the config and the network or a process: every path that makes a
 * transport, runs a headers helper or talks OAuth to a server calls it first. A server
 * that is pending approval, rejected, blocked by policy or disabled (or in any state this
 * version does not know) gets no byte and no process.
 */
export function assertMayContact(server: ResolvedServer): void {
  if (server.status === 'enabled') return;
  const hint = notStartedHint(server) || `server "${server.name}" is ${server.status}`;
  throw new ServerNotEnabledError(
    server.name,
    server.status,
    `${hint}${nextStep(server)} (nothing was sent to it)`,
  );
}

import { McpkitError } from '@mcpkit/jsonrpc/errors';
import type { ApprovalNeeded } from './approvals.js';
import { ConfigErrorCode } from './errors.js';
import type { ResolvedServer, ServerOrigin, ServerStatus } from './resolve.js';

/**
 * The gate refused a server: its resolved entry does not allow contacting it. Facts only
 * (`status`, `reason`, `source`); a host words what to do about it.
 */
export class ServerNotEnabledError extends McpkitError {
  static readonly brand: string = '@mcpkit/config.ServerNotEnabledError';
  override readonly name: string = 'ServerNotEnabledError';
  readonly server: string;
  /** Never `enabled`; `disabled` also when the entry says `disabled: true`. */
  readonly status: Exclude<ServerStatus, 'enabled'>;
  /** The resolver's reason for the status. */
  readonly reason: string;
  /** Where the entry comes from (a file, or a label). */
  readonly source: string;
  /** The user's own entries of that name that this project entry replaces. */
  readonly replaces: readonly ServerOrigin[];
  /** `pending-approval` only: why (never approved, changed since, approved by name only). */
  readonly approvalNeeded: ApprovalNeeded | undefined;
  constructor(server: ResolvedServer) {
    const status = statusOf(server) as Exclude<ServerStatus, 'enabled'>;
    super(
      ConfigErrorCode.NotEnabled,
      `server "${server.name}": not started because its status is "${status}"${server.reason && server.reason !== 'enabled' ? ` (${server.reason})` : ''}; nothing was sent to it`,
    );
    this.server = server.name;
    this.status = status;
    this.reason = server.reason;
    this.source = server.source;
    this.replaces = server.replaces ?? [];
    this.approvalNeeded = server.approvalNeeded;
  }
}

/** The status that decides the gate: a `disabled: true` entry is `disabled` whatever else. */
function statusOf(server: ResolvedServer): ServerStatus {
  const status = server.status ?? 'enabled';
  return status === 'enabled' && server.config.disabled === true ? 'disabled' : status;
}

/** Whether the resolved entry allows contacting the server (approval, policy, `disabled`). */
export function mayContact(server: ResolvedServer): boolean {
  return statusOf(server) === 'enabled';
}

/**
 * The one gate between a resolved entry and the network or a process: a server pending
 * approval, rejected, blocked by policy, disabled or skipped (or in a status this version
 * does not know) gets no byte and no process. Every path that makes a transport, runs a
 * headers helper or talks OAuth to a server calls it first.
 */
export function assertMayContact(server: ResolvedServer): void {
  if (!mayContact(server)) throw new ServerNotEnabledError(server);
}

import type { McpClient } from '@mcpkit/client';
import type { Implementation, LoggingMessageParams, ServerCapabilities } from '@mcpkit/protocol';

/** One server as the host sees it. Immutable: a new object on every transition. */
export type ServerState =
  | ConnectedState
  | FailedState
  | NeedsAuthState
  | PendingState
  | DisabledState;

export interface ConnectedState {
  readonly name: string;
  readonly state: 'connected';
  readonly client: McpClient;
  readonly capabilities: ServerCapabilities;
  readonly serverInfo: Implementation | undefined;
  readonly protocolVersion: string;
  readonly era: 'legacy' | 'modern';
  /** Cut at 2,048 characters plus "… [truncated]". */
  readonly instructions?: string;
  /** Epoch ms. */
  readonly connectedAt: number;
  readonly connectMs: number;
}

export interface FailedState {
  readonly name: string;
  readonly state: 'failed';
  /** Typed: names the server, the cause and what to do next. */
  readonly error: Error;
  readonly exitCode?: number;
  readonly stderrTail?: string;
  readonly url?: string;
  readonly status?: number;
}

export interface NeedsAuthState {
  readonly name: string;
  readonly state: 'needs-auth';
  readonly error: Error;
  readonly url: string;
}

export interface PendingState {
  readonly name: string;
  readonly state: 'pending';
  /** 0 while first connecting; then the reconnect attempt under way or next. */
  readonly reconnectAttempt: number;
  /** Attempts in the fast phase; the slow phase retries until the manager is closed. */
  readonly maxReconnectAttempts: number;
  /** Epoch ms of the next retry, when one is scheduled. */
  readonly nextRetryAt?: number;
  readonly reason?: string;
}

export interface DisabledState {
  readonly name: string;
  readonly state: 'disabled';
  readonly reason: string;
}

export interface ManagerSnapshot {
  readonly servers: readonly ServerState[];
}

/** A list's change, computed by name. */
export interface ListDiff<T> {
  readonly server: string;
  readonly added: readonly T[];
  readonly removed: readonly T[];
  readonly changed: readonly T[];
}

export interface ManagerEvents {
  statechange: {
    name: string;
    state: ServerState;
    previous: ServerState | undefined;
    reason: string;
  };
  toolschange: ListDiff<import('./host-tool.js').HostTool>;
  promptschange: ListDiff<import('./commands.js').HostCommand>;
  resourceschange: ListDiff<import('./resources.js').HostResource>;
  log: { server: string; params: LoggingMessageParams };
  stderr: { server: string; text: string };
  warning: { server: string; error: Error };
}

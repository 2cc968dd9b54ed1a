import type { McpClient } from '@mcpkit/client';
import type { JsonRpcId } from '@mcpkit/jsonrpc';
import type { Implementation, LoggingMessageParams, ServerCapabilities } from '@mcpkit/protocol';
import type { Diagnosis, FailureCause, NextStep } from './failure.js';

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
  /**
   * Connected but degraded: the lists whose last fetch failed, until a fetch succeeds.
   * Absent when every list it was asked for came.
   */
  readonly degraded?: readonly ListFailure[];
  /** Tools of its last `tools/list` that the client repaired or left out. Absent when none. */
  readonly toolIssues?: readonly ToolListIssue[];
}

/** What gets a failed list back (an application words it): the list kinds of `NextStep`. */
export type ListNextStep =
  /** The manager asks again on the next read after `at` (epoch ms), or on a `list_changed`. */
  | { readonly kind: 'retry'; readonly at: number }
  /** The connection broke: the manager reconnects on its own (or `reconnect()`). */
  | { readonly kind: 'reconnect' }
  /** The server's answer broke the protocol schema: only its authors can fix it. */
  | { readonly kind: 'fix-server' };

/** One list a connected server failed to give. */
export interface ListFailure {
  readonly list: import('./catalog.js').ListKind;
  /** The typed error (`serverTools()` rejects with it). */
  readonly error: Error;
  readonly message: string;
  /** The error's `MCPKIT_*` code, when it has one. */
  readonly code?: string;
  /** The JSON-RPC error code the server answered with, when it did. */
  readonly rpcCode?: number;
  /** The same facts as a `FailureCause` (`list-failed`). */
  readonly failure: Extract<FailureCause, { kind: 'list-failed' }>;
  /** Epoch ms. */
  readonly failedAt: number;
  /** Epoch ms: before this, a read does not ask the server again. */
  readonly retryAt: number;
  readonly nextStep: ListNextStep;
}

/** A tool of the server's list that did not fit the protocol schema. */
export interface ToolListIssue {
  readonly tool: string;
  /** `repaired`: kept with the change `reason` names; `dropped`: left out. */
  readonly action: 'repaired' | 'dropped';
  readonly reason: string;
}

/** A server that could not connect: its error, and the facts of why (`Diagnosis`). */
export interface FailedState extends Diagnosis {
  readonly name: string;
  readonly state: 'failed';
  /** Typed: names the server, the cause and what to do next. */
  readonly error: Error;
}

export interface NeedsAuthState {
  readonly name: string;
  readonly state: 'needs-auth';
  readonly error: Error;
  readonly url: string;
  readonly failure: FailureCause;
  readonly nextStep: NextStep;
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
  /** Which gate holds it (config status or the host), as facts. */
  readonly failure?: FailureCause;
  readonly nextStep?: NextStep;
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
  /** `relatedRequestId`: over HTTP, the server's client's request it arrived with. */
  log: { server: string; params: LoggingMessageParams; relatedRequestId?: JsonRpcId };
  /** `notifications/resources/updated` for a resource the host subscribed to on the server's client. */
  resourceupdated: { server: string; uri: string };
  stderr: { server: string; text: string };
  warning: { server: string; error: Error };
}

import type { ListKind } from './catalog.js';

/**
 * Why a server failed, as facts a host can word (the manager's messages state the same
 * facts in English; match on `kind`, never on a message).
 */
export type FailureCause =
  /** The connect budget ran out before the handshake finished. */
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  /** The server's process could not be started (`errno` from the OS, e.g. `ENOENT`). */
  | { readonly kind: 'spawn-failed'; readonly command: string; readonly errno?: string }
  /** The server's process exited (or was killed) before or while connected. */
  | { readonly kind: 'exited'; readonly exitCode?: number; readonly signal?: string }
  /** The server answered HTTP with a status that is not a sign-in challenge. */
  | { readonly kind: 'http-status'; readonly status: number; readonly url?: string }
  /** Nothing answered at the server's address, or the connection broke (`errno` when known). */
  | { readonly kind: 'unreachable'; readonly url?: string; readonly errno?: string }
  /** A stdio server died soon after starting `attempts` times within `windowMs`. */
  | {
      readonly kind: 'crash-loop';
      readonly attempts: number;
      readonly windowMs: number;
      readonly exitCode?: number;
    }
  /** The server needs authorization only the user can give; `interactive` false when the host forbids a sign-in. */
  | { readonly kind: 'needs-sign-in'; readonly url?: string; readonly interactive?: boolean }
  /** A list of a connected server failed. */
  | {
      readonly kind: 'list-failed';
      readonly list: ListKind;
      readonly code?: string;
      readonly rpcCode?: number;
    }
  /** A project server waits for the user's approval (or its entry changed since). */
  | { readonly kind: 'not-approved' }
  /** The user rejected this project server. */
  | { readonly kind: 'rejected' }
  /** The config (`disabled: true`) or the host disabled it. */
  | { readonly kind: 'disabled'; readonly by: 'config' | 'host' }
  /** The managed policy does not allow it. */
  | { readonly kind: 'denied-by-policy' }
  /** The config left it out for a reason of its own (e.g. it runs this host itself). */
  | { readonly kind: 'skipped' }
  /** The entry's type has no transport here. */
  | { readonly kind: 'unsupported-type'; readonly type: string }
  /** A message from the server was larger than `limit` bytes. */
  | { readonly kind: 'message-too-large'; readonly limit: number }
  /** Anything else; `code` is the underlying error's `MCPKIT_*` code when it has one. */
  | { readonly kind: 'other'; readonly code?: string };

export type FailureKind = FailureCause['kind'];

/**
 * What gets a server back, as facts a host words in its own commands. The list steps
 * (`retry`, `reconnect`, `fix-server`) are those of `ListNextStep`.
 */
export type NextStep =
  /** Try again (`at`: epoch ms before which the manager does not ask again on its own). */
  | { readonly kind: 'retry'; readonly at?: number }
  /** Start the server again (`reconnect()`); the manager may do it on its own. */
  | { readonly kind: 'reconnect' }
  /** Only the server's authors can fix it (it broke the protocol). */
  | { readonly kind: 'fix-server' }
  /** Fix the server's entry (its command, URL or headers) or the server, then reconnect. */
  | { readonly kind: 'fix-config' }
  /** Sign in (`interactive` false: the host does not allow an interactive sign-in). */
  | { readonly kind: 'sign-in'; readonly interactive?: boolean }
  /** Approve the project server. */
  | { readonly kind: 'approve' }
  /** Enable it where it was disabled. */
  | { readonly kind: 'enable'; readonly by: 'config' | 'host' }
  /** Raise the named limit (`option`: the manager's option, e.g. `limits.connectTimeoutMs`). */
  | { readonly kind: 'raise-limit'; readonly option: string }
  /** The managed policy decides: only its administrator can change it. */
  | { readonly kind: 'ask-admin' }
  /** Nothing the user can do here. */
  | { readonly kind: 'none' };

export type NextStepKind = NextStep['kind'];

/**
 * A connect failure as facts: why, what gets the server back, and what the failure left
 * to show (exit code, stderr, URL, HTTP status). A failed state is one of these.
 */
export interface Diagnosis {
  /** Why, as facts (match on `failure.kind`, never on an error's message). */
  readonly failure: FailureCause;
  /** What gets it back, for the host to word in its own commands. */
  readonly nextStep: NextStep;
  readonly exitCode?: number;
  readonly stderrTail?: string;
  readonly url?: string;
  readonly status?: number;
}

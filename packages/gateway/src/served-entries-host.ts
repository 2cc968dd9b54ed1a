import type { Completer, McpServer } from '@mcpkit/server';
import type { Forward } from './forward-request.js';

/** A reference a backend completes arguments of. */
export type CompletionRef =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

/** What a served prompt's or resource's handler needs of its gateway. */
export interface EntryHost {
  readonly server: McpServer;
  readonly forward: Forward;
  /** Completers that ask the backend for each argument (when it offers completions). */
  completers(
    server: string,
    ref: CompletionRef,
    names: string[],
  ): Record<string, Completer> | undefined;
}

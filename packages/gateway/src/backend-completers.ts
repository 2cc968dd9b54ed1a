import type { McpClient } from '@mcpkit/client';
import type { McpManager } from '@mcpkit/manager';
import type { Completer } from '@mcpkit/server';
import type { CompletionRef } from './served-entries-host.js';

/**
 * Completers that ask the backend (when it offers completions) for each argument; a
 * backend's failure is given in the host's words (`worded`).
 */
export function backendCompleters(
  options: {
    manager: McpManager;
    callTimeoutMs: number;
    worded: (error: unknown, server: string) => unknown;
  },
  client: McpClient | undefined,
  server: string,
  ref: CompletionRef,
  names: string[],
): Record<string, Completer> | undefined {
  if (!client?.serverCapabilities?.completions || names.length === 0) return undefined;
  const { manager, callTimeoutMs, worded } = options;
  const completer: (name: string) => Completer = (name) => async (value, context) => {
    try {
      const backend = await manager.client(server, { timeoutMs: callTimeoutMs });
      const result = await backend.complete(ref, { name, value }, context, {
        timeoutMs: callTimeoutMs,
      });
      return result.completion.values;
    } catch (error) {
      throw worded(error, server);
    }
  };
  return Object.fromEntries(names.map((n) => [n, completer(n)]));
}

import type { McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import type { Transport } from '@mcpkit/jsonrpc';
import type { Clock } from './clock.js';
import { ConnectTimeoutError } from './errors.js';

/**
 * One connect attempt within one budget (`limits.connectTimeoutMs`) for the transport and
 * the whole handshake. On expiry or failure the client, else the transport (and so its
 * process tree), is closed; a transport that arrives after the budget ran out is closed,
 * never left running.
 */
export async function connectWithin(
  server: ResolvedServer,
  budgetMs: number,
  deps: {
    clock: Clock;
    makeTransport(server: ResolvedServer): Promise<Transport>;
    makeClient(server: ResolvedServer): McpClient;
    /** The transport is in use from now (its process started at `startedAt`). */
    ontransport(transport: Transport, startedAt: number): void;
    /** The attempt failed: the transport is closed and no longer in use. */
    onabandon(transport: Transport): void;
  },
): Promise<McpClient> {
  const controller = new AbortController();
  let transport: Transport | undefined;
  let client: McpClient | undefined;
  const timer = deps.clock.setTimeout(
    () => controller.abort(new ConnectTimeoutError(server.name, budgetMs, stderrOf(transport))),
    budgetMs,
  );
  const expired = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
      once: true,
    }),
  );
  expired.catch(() => {});
  try {
    const made = deps.makeTransport(server);
    made
      .then((t) => (controller.signal.aborted ? t.close().catch(() => {}) : undefined))
      .catch(() => {});
    transport = await Promise.race([made, expired]);
    client = deps.makeClient(server);
    deps.ontransport(transport, deps.clock.now());
    await Promise.race([
      client.connect(transport, { signal: controller.signal, timeoutMs: budgetMs }),
      expired,
    ]);
    return client;
  } catch (error) {
    if (client) await client.close().catch(() => {});
    else if (transport) await transport.close().catch(() => {});
    if (transport) deps.onabandon(transport);
    throw error;
  } finally {
    deps.clock.clearTimeout(timer);
  }
}

/** What a stdio transport kept of its process's stderr (other transports have none). */
function stderrOf(transport: Transport | undefined): string | undefined {
  const read = (transport as { stderrTail?: (lines?: number) => string } | undefined)?.stderrTail;
  return typeof read === 'function' ? read.call(transport, 10) : undefined;
}

import {
  ConnectionClosedError,
  MessageTooLargeError,
  SessionExpiredError,
  streamRetryDelay,
} from '@mcpkit/jsonrpc';
import type { StreamHost, StreamState } from './stream-host.js';

/**
 * Keeps the standalone GET stream (server-initiated messages) open until `signal` aborts:
 * the transport closes, or the session it belongs to is reset. A drop is retried under the
 * reconnect policy; only a stream that delivered something counts as recovered. A 404 for
 * the session (`SessionExpiredError`) ends it and is reported: the client starts a new
 * session, whose own stream opens after its initialization.
 */
export async function runStandaloneStream(host: StreamHost, signal: AbortSignal): Promise<void> {
  const state: StreamState = { answered: false, lastEventId: undefined, received: 0 };
  for (let attempt = 0; !signal.aborted; ) {
    let reason = 'the stream ended';
    const before = state.received!;
    try {
      const body = await host.openGet(state.lastEventId, signal);
      if (!body) return; // The server offers no standalone stream: quietly none.
      await host.readEvents(body, state, undefined);
      if (state.received! > before) attempt = 0;
    } catch (error) {
      if (signal.aborted) return;
      // A server that sends an oversized event would only send it again, and a forgotten
      // session stays forgotten: stop here.
      if (MessageTooLargeError.isInstance(error) || SessionExpiredError.isInstance(error)) {
        host.reportError(error);
        return;
      }
      reason = (error as Error).message;
    }
    if (signal.aborted) return;
    attempt++;
    if (attempt > host.policy.maxAttempts) {
      host.reportError(
        new ConnectionClosedError(
          `${host.description}: standalone stream lost (${reason}); gave up after ${attempt - 1} attempts`,
        ),
      );
      return;
    }
    const delayMs = streamRetryDelay(host.policy, attempt, host.serverRetryMs);
    host.onreconnect({
      stream: 'standalone',
      attempt,
      delayMs,
      reason,
      lastEventId: state.lastEventId,
    });
    // An abort ends the wait early (rejecting with its reason); the loop sees the signal.
    await host.sleep(delayMs, signal).catch(() => {});
  }
}

import {
  ConnectionClosedError,
  type JsonRpcId,
  MessageTooLargeError,
  ResponseLostError,
  SessionExpiredError,
  streamRetryDelay,
} from '@mcpkit/jsonrpc';
import { emptyStream, isUnreachable } from './reconnect.js';
import type { StreamHost, StreamState } from './stream-host.js';

/**
 * Reads the event stream that answers one POST; when it drops before the response arrived,
 * resumes it with `Last-Event-ID` under the reconnect policy (before 2026-07-28), or
 * reports the response lost (2026-07-28 removed resumption).
 */
export async function consumeResponseStream(
  host: StreamHost,
  body: AsyncIterable<Buffer>,
  requestId: JsonRpcId,
  signal: AbortSignal,
): Promise<void> {
  const state: StreamState = { answered: false, lastEventId: undefined };
  let current: AsyncIterable<Buffer> = body;
  for (let attempt = 0; ; attempt++) {
    let reason = 'the stream ended before the response';
    try {
      await host.readEvents(current, state, requestId);
      if (state.answered || signal.aborted) return;
    } catch (error) {
      if (signal.aborted || host.closed) return;
      if (MessageTooLargeError.isInstance(error)) throw error;
      reason = (error as Error).message;
    }
    if (host.modern) {
      throw new ResponseLostError(
        `${host.description}: ${reason} to request ${String(requestId)}; the response is lost (2026-07-28 streams cannot be resumed)`,
        requestId,
      );
    }
    if (state.lastEventId === undefined) {
      throw new ConnectionClosedError(
        `${host.description}: ${reason} to request ${String(requestId)}, and the stream cannot be resumed (no event id)`,
      );
    }
    if (attempt >= host.policy.maxAttempts) {
      throw new ConnectionClosedError(
        `${host.description}: ${reason}; gave up resuming after ${attempt} attempts`,
      );
    }
    const delayMs = streamRetryDelay(host.policy, attempt + 1, host.serverRetryMs);
    host.onreconnect({
      stream: 'response',
      attempt: attempt + 1,
      delayMs,
      reason,
      lastEventId: state.lastEventId,
    });
    // An abort ends the wait early (rejecting with its reason); the loop sees the signal.
    await host.sleep(delayMs, signal).catch(() => {});
    if (signal.aborted) return;
    try {
      current = (await host.openGet(state.lastEventId, signal)) ?? emptyStream();
    } catch (error) {
      if (signal.aborted) return;
      // The server is not there at all: fail now rather than after every back-off.
      if (isUnreachable(error)) throw host.networkError('GET', error);
      // The server forgot the session, and the answer with it. Reported (the client starts a
      // new session); the request is not sent again: it reached the server that forgot it.
      if (SessionExpiredError.isInstance(error)) {
        host.reportError(error);
        throw new ConnectionClosedError(
          `${host.description}: ${reason} to request ${String(requestId)}, and the session expired before it was resumed; the response is lost`,
          { cause: error },
        );
      }
      host.reportError(error as Error);
      current = emptyStream();
    }
  }
}

import type { ReconnectPolicy } from './backoff.js';
import type { Clock } from './clock.js';
import type { ServerConnection } from './connection.js';
import type { ManagerLimits } from './limits.js';
import type { PendingState } from './state.js';

/**
 * One sweep of idle stop and health pings, scheduled at half the shorter period. Returns
 * the timer, or undefined when neither is configured.
 */
export function scheduleSweep(deps: {
  clock: Clock;
  limits: ManagerLimits;
  connections: () => Iterable<ServerConnection>;
  idleStop: (connection: ServerConnection) => void;
  track: (task: Promise<unknown>) => void;
  again: () => void;
}): unknown {
  const { idleStopMs, pingIntervalMs } = deps.limits;
  const periods = [idleStopMs, pingIntervalMs].filter((ms) => ms > 0);
  if (periods.length === 0) return undefined;
  return deps.clock.setTimeout(
    () => {
      const now = deps.clock.now();
      for (const c of deps.connections()) {
        if (c.state.state !== 'connected' || c.isStopping) continue;
        if (idleStopMs > 0 && now - c.lastUsedAt >= idleStopMs) deps.idleStop(c);
        else if (pingIntervalMs > 0 && now - Math.max(c.lastUsedAt, c.lastPingAt) >= pingIntervalMs)
          deps.track(c.ping(pingIntervalMs));
      }
      deps.again();
    },
    Math.max(10, Math.min(...periods) / 2),
  );
}

/** The state of a server stopped for being idle: it starts again on its next call. */
export function idleState(
  name: string,
  limits: ManagerLimits,
  policy: ReconnectPolicy,
): PendingState {
  return {
    name,
    state: 'pending',
    reconnectAttempt: 0,
    maxReconnectAttempts: policy.fastAttempts,
    reason: `stopped after ${limits.idleStopMs} ms without a call; starts on its next call`,
  };
}

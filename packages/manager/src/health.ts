import type { ReconnectPolicy } from './backoff.js';
import type { Catalog } from './catalog.js';
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

/**
 * Idle stop and health pings on one timer, re-armed after each sweep until `stop()`. A
 * server stopped for being idle stays listed by its last tools, so a host's tool list
 * does not flicker.
 */
export class Sweeper {
  private timer: unknown;
  private stopped = false;

  constructor(
    private readonly deps: {
      clock: Clock;
      limits: ManagerLimits;
      reconnect: ReconnectPolicy;
      catalog: Catalog;
      connections: () => Iterable<ServerConnection>;
      track: (task: Promise<unknown>) => void;
    },
  ) {}

  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const { clock, limits, reconnect, catalog, track } = this.deps;
    this.timer = scheduleSweep({
      clock,
      limits,
      connections: this.deps.connections,
      idleStop: (c) => {
        const tools = catalog.lists.get(c.name)?.tools;
        if (tools) catalog.setWarm(c.name, tools);
        track(c.stop(idleState(c.name, limits, reconnect), 'idle'));
      },
      track,
      again: () => {
        this.timer = undefined;
        this.start();
      },
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.deps.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

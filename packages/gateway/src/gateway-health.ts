import type { McpManager } from '@mcpkit/manager';
import type { AccessControl } from './access/access-control.js';

/** A gateway's `/healthz` answer (see `Gateway.health`). */
export interface GatewayHealth {
  /** `ok`: every backend connected; `down`: none; else `degraded`. */
  status: 'ok' | 'degraded' | 'down';
  /** Each backend's state (`degraded`: connected, the lists in `degraded` failed). */
  servers: Array<{ server: string; state: string; degraded?: string[] }>;
  /**
   * With an access policy: `refusing` (every call) while it cannot be read, or while a
   * required audit log cannot be written; `audit` while the audit log is failing.
   */
  access?: ReturnType<AccessControl['health']>;
}

/**
 * Each backend's state (`degraded` for one connected with a failed list, with the kinds of
 * those lists) and the whole: `ok`, `degraded` (some backend not connected or degraded, one
 * connected at least) or `down` (none connected); the access control's health beside.
 */
export function gatewayHealth(
  served: readonly string[],
  manager: McpManager,
  access: AccessControl | undefined,
): GatewayHealth {
  const servers = served.map((server) => {
    const state = manager.state(server);
    if (state?.state === 'connected' && state.degraded?.length)
      return { server, state: 'degraded', degraded: state.degraded.map((f) => f.list) };
    return { server, state: state?.state ?? 'unknown' };
  });
  const up = servers.filter((s) => s.state === 'connected' || s.state === 'degraded');
  const status =
    servers.length > 0 && up.length === 0
      ? 'down'
      : servers.every((s) => s.state === 'connected')
        ? 'ok'
        : 'degraded';
  const health = access?.health();
  return health ? { status, servers, access: health } : { status, servers };
}

import pMap from 'p-map';
import type { ServerConnection } from './connection.js';
import type { LazyParking } from './lazy-parking.js';
import type { ManagerLimits } from './limits.js';
import type { NeedsAuthCache } from './needs-auth-cache.js';
import { isLocal } from './transport-factory.js';

/**
 * Connects pending servers in two pools at once (local: stdio and in-process; remote), a
 * slot freed as soon as its server settles. A recent needs-auth verdict is shown again
 * without asking the server; a lazily started server with a warm cache is parked.
 * Resolves when each has settled.
 */
export async function connectInPools(
  connections: readonly ServerConnection[],
  deps: { limits: ManagerLimits; needsAuth: NeedsAuthCache; lazy: LazyParking },
  signal?: AbortSignal,
): Promise<void> {
  const pending: ServerConnection[] = [];
  for (const c of connections) {
    if (c.state.state !== 'pending') continue;
    const cached = deps.needsAuth.recent(c.name);
    if (cached) await c.stop(cached, 'needs-auth (cached verdict)');
    else pending.push(c);
  }
  const startable = await deps.lazy.park(pending);
  const run = (c: ServerConnection) => c.connect('connect').catch(() => {});
  const pool = (list: ServerConnection[], concurrency: number) =>
    pMap(list, run, { concurrency: Math.max(1, concurrency), ...(signal ? { signal } : {}) });
  await Promise.all([
    pool(
      startable.filter((c) => isLocal(c.server)),
      deps.limits.localConcurrency,
    ),
    pool(
      startable.filter((c) => !isLocal(c.server)),
      deps.limits.remoteConcurrency,
    ),
  ]);
}

import type { ServerConnection } from './connection.js';
import type { LazyParking } from './lazy-parking.js';
import type { NeedsAuthCache } from './needs-auth-cache.js';

/**
 * Starts every pending server's connect at once; the connections' pools (local: stdio and
 * in-process; remote — `Pool`, which every connect of a kind goes through) hold each to its
 * limit, a slot freed as soon as its server settles. A recent needs-auth verdict is shown
 * again without asking the server; a lazily started server with a warm cache is parked.
 * Resolves when each has settled; rejects with the signal's reason when it aborts first
 * (the connects still queued then start only if the manager is not closed).
 */
export async function connectInPools(
  connections: readonly ServerConnection[],
  deps: { needsAuth: NeedsAuthCache; lazy: LazyParking },
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted();
  const pending: ServerConnection[] = [];
  for (const c of connections) {
    if (c.state.state !== 'pending') continue;
    const cached = deps.needsAuth.recent(c.name);
    if (cached) await c.stop(cached, 'needs-auth (cached verdict)');
    else pending.push(c);
  }
  const startable = await deps.lazy.park(pending);
  signal?.throwIfAborted();
  const all = Promise.all(startable.map((c) => c.connect('connect').catch(() => {})));
  if (!signal) {
    await all;
    return;
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([all, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

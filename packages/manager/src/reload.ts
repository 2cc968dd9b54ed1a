import type { ResolvedServer } from '@mcpkit/config';
import { serverSignature } from '@mcpkit/config/internal';

export interface ReloadResult {
  /** Names that kept their connection. */
  unchanged: string[];
  /** Names whose entry changed: closed and connected again. */
  changed: string[];
  added: string[];
  removed: string[];
}

/** Object keys sorted, so that the same entry written in another order compares equal. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

/**
 * What identifies a running server: its signature (argv or URL) and everything else in
 * its entry (env, headers, auth, timeout) and its status. Any difference restarts it.
 */
export function serverFingerprint(server: ResolvedServer): string {
  return stable({
    signature: serverSignature(server.config) ?? null,
    config: server.config,
    status: server.status ?? 'enabled',
    scope: server.scope,
    source: server.source,
  });
}

export function diffServers(
  current: ReadonlyMap<string, ResolvedServer>,
  next: readonly ResolvedServer[],
): ReloadResult {
  const result: ReloadResult = { unchanged: [], changed: [], added: [], removed: [] };
  const names = new Set<string>();
  for (const server of next) {
    names.add(server.name);
    const before = current.get(server.name);
    if (!before) result.added.push(server.name);
    else if (serverFingerprint(before) === serverFingerprint(server))
      result.unchanged.push(server.name);
    else result.changed.push(server.name);
  }
  for (const name of current.keys()) if (!names.has(name)) result.removed.push(name);
  return result;
}

/**
 * The servers of a late source (connectors) worth adding: not already present by name,
 * and not the same server (by signature) as one that is — the first source wins.
 */
export function lateArrivals(
  present: readonly ResolvedServer[],
  more: readonly ResolvedServer[],
): ResolvedServer[] {
  const names = new Set(present.map((s) => s.name));
  const signatures = new Set(present.map((s) => serverSignature(s.config)).filter(Boolean));
  return more.filter((s) => {
    if (names.has(s.name)) return false;
    const sig = serverSignature(s.config);
    return sig === undefined || !signatures.has(sig);
  });
}

import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import { everythingEntry } from '../support/everything.js';

/** A resolved, enabled server entry, as `@mcpkit/config` would give it. */
export function resolved(
  name: string,
  config: ServerConfig,
  extra: Partial<ResolvedServer> = {},
): ResolvedServer {
  return {
    name,
    scope: 'user',
    source: 'test',
    config,
    status: 'enabled',
    reason: 'test entry',
    policy: { allowed: true } as ResolvedServer['policy'],
    missingVariables: [],
    ...extra,
  };
}

/** server-everything over stdio. */
export function everythingStdio(name = 'everything'): ResolvedServer {
  return resolved(name, { type: 'stdio', command: process.execPath, args: [everythingEntry, 'stdio'] });
}

/** Resolves when `predicate` holds for an event, or rejects after the test's own timeout. */
export function nextEvent<T>(
  subscribe: (listener: (event: T) => void) => () => void,
  predicate: (event: T) => boolean,
): Promise<T> {
  return new Promise((resolve) => {
    const off = subscribe((event) => {
      if (!predicate(event)) return;
      off();
      resolve(event);
    });
  });
}

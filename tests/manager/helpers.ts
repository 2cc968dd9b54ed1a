import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  return resolved(name, {
    type: 'stdio',
    command: process.execPath,
    args: [everythingEntry, 'stdio'],
  });
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

export const faultServer = fileURLToPath(
  new URL('../fixtures/faults/fault-server.mjs', import.meta.url),
);

export type FaultMode =
  | 'ok'
  | 'crash-start'
  | 'crash-call'
  | 'hang-init'
  | 'garbage'
  | 'slow-start'
  | 'crash-after'
  | 'deaf'
  | 'list-error'
  | 'list-error-once'
  | 'bad-schemas';

/** A fault fixture entry; with `log`, every start of its process is appended there. */
export function fault(name: string, mode: FaultMode, log?: string): ResolvedServer {
  return resolved(name, {
    type: 'stdio',
    command: process.execPath,
    args: [faultServer, mode, ...(log ? [log] : [])],
  });
}

/** A temp directory removed by `[Symbol.dispose]`. */
export function tempDir(): { dir: string; file(name: string): string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-manager-test-'));
  return {
    dir,
    file: (name) => path.join(dir, name),
    [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** How many tools/list requests a fault fixture logged. */
export function listRequests(log: string): number {
  try {
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l === 'tools/list').length;
  } catch {
    return 0;
  }
}

/** PIDs a fault fixture logged at start. */
export function startedPids(log: string): number[] {
  try {
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('start '))
      .map((l) => Number(l.slice(6)));
  } catch {
    return [];
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

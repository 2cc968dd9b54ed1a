import type { ServerState } from '@mcpkit/manager';
import { listFailure, summarize } from '../core/advice.js';

/** One line about a server's new state, in the shell's words; undefined when not worth a line. */
export function stateLine(state: ServerState): string | undefined {
  const name = state.name;
  switch (state.state) {
    case 'connected': {
      // Connected, but a list failed: what failed and what to do, not "connected" again.
      const failed = (state.degraded ?? []).map((f) => listFailure(name, f));
      if (failed.length > 0)
        return `[${name}] degraded: ${failed.map((f) => `${f.reason}; ${f.next}`).join('; ')}`;
      // The version only, as `servers` shows it: "(legacy)" on every 2025 server read as a warning.
      return `[${name}] connected · ${state.protocolVersion} · ${state.connectMs} ms`;
    }
    case 'pending':
      if (state.reconnectAttempt === 0) return undefined;
      return `[${name}] reconnecting (${state.reconnectAttempt}/${state.maxReconnectAttempts})${state.reason ? `: ${state.reason}` : ''}`;
    case 'needs-auth':
      return `[${name}] needs-auth: run "login ${name}"`;
    default: {
      const s = summarize(state);
      return `[${name}] ${s.state}: ${s.reason}${s.next ? `; ${s.next}` : ''}`;
    }
  }
}

type Item = { tool?: string; prompt?: string; uri?: string; name?: string };
export interface ListDiffLike {
  server: string;
  added: readonly Item[];
  removed: readonly Item[];
  changed: readonly Item[];
}

const label = (i: Item) => i.tool ?? i.prompt ?? i.uri ?? i.name ?? '?';

/**
 * Turns the manager's list events into the lines a user wants: what a server's list has
 * now against what was last said. The manager empties a server's lists when its
 * connection goes (a crash, a refetch) and fills them again after; that round trip says
 * nothing new, so an empty list is never announced and the refill is compared with what
 * was said before it. A server's first list is not a change either.
 */
export class ListChanges {
  private readonly lists = new Map<string, { current: Set<string>; said?: Set<string> }>();

  /** The line to print for this event, if any. */
  apply(kind: 'tools' | 'prompts' | 'resources', d: ListDiffLike): string | undefined {
    const key = `${kind}\0${d.server}`;
    let entry = this.lists.get(key);
    if (!entry) {
      entry = { current: new Set() };
      this.lists.set(key, entry);
    }
    for (const i of d.removed) entry.current.delete(label(i));
    for (const i of d.added) entry.current.add(label(i));
    if (entry.current.size === 0) return undefined;
    const said = entry.said;
    entry.said = new Set(entry.current);
    if (!said) return undefined;
    const parts = [
      ...[...entry.current].filter((n) => !said.has(n)).map((n) => `+${n}`),
      ...[...said].filter((n) => !entry.current.has(n)).map((n) => `-${n}`),
      ...d.changed.map((i) => `~${label(i)}`),
    ];
    return parts.length > 0 ? `[${d.server}] ${kind} changed: ${parts.join(' ')}` : undefined;
  }
}

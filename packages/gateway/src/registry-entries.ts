import type { Registration } from '@mcpkit/server';

/** An entry of the served registry: its change key, and how to register it. */
export interface RegistryEntry {
  key: string;
  add: () => Registration;
}

/** A registered entry: its change key and its registration (to remove it). */
export interface RegisteredEntry {
  key: string;
  reg: Registration;
}

/**
 * Makes `current` (what the server has registered) match `wanted`: only entries whose key
 * changed are replaced, so the server announces `list_changed` only for a real change.
 */
export function applyEntries(
  current: Map<string, RegisteredEntry>,
  wanted: Map<string, RegistryEntry>,
): void {
  for (const [name, entry] of current) {
    if (wanted.get(name)?.key === entry.key) continue;
    entry.reg.remove();
    current.delete(name);
  }
  for (const [name, entry] of wanted) {
    if (current.has(name)) continue;
    current.set(name, { key: entry.key, reg: entry.add() });
  }
}

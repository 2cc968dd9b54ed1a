import { HOST_NAME_PATTERN, hostName, NameRegistry } from '@mcpkit/manager';

/** What MCP hosts and model providers accept as a tool name (the manager's rule). */
export const EXPOSED_NAME_PATTERN = HOST_NAME_PATTERN;

/** The gateway's name for one pair: `<server><separator><item>` by the manager's rules. */
export function exposedName(server: string, item: string, separator: string): string {
  return hostName(server, item, { prefix: '', separator });
}

export interface NamedPair {
  server: string;
  item: string;
}

/**
 * Names every pair by the manager's host-name rules (`<server><separator><item>`, 64
 * characters, a hash for a pair that would not read back, salted on a collision). Pairs that
 * meet on one name are both kept and the collision is returned for a warning. With
 * `prefix: false` (one server) the backend's names pass through unchanged.
 */
export function nameAll(
  pairs: readonly NamedPair[],
  options: { separator: string; prefix: boolean },
): { names: Map<string, NamedPair>; collisions: Array<{ name: string; kept: NamedPair[] }> } {
  const names = new Map<string, NamedPair>();
  if (!options.prefix) {
    const collisions: Array<{ name: string; kept: NamedPair[] }> = [];
    const sorted = [...pairs].sort((a, b) =>
      a.server === b.server ? cmp(a.item, b.item) : cmp(a.server, b.server),
    );
    for (const pair of sorted) {
      const other = names.get(pair.item);
      if (!other) names.set(pair.item, pair);
      else if (other.server !== pair.server || other.item !== pair.item) {
        // The later pair keeps its prefixed (host-safe, hashed when needed) name.
        let name = exposedName(pair.server, pair.item, options.separator);
        for (let n = 2; names.has(name); n++)
          name = exposedName(pair.server, `${pair.item}#${n}`, options.separator);
        names.set(name, pair);
        collisions.push({ name: pair.item, kept: [other, pair] });
      }
    }
    return { names, collisions };
  }
  const registry = new NameRegistry({ prefix: '', separator: options.separator });
  const collisions = registry.rebuild(pairs);
  for (const pair of pairs) {
    const name = registry.nameOf(pair.server, pair.item);
    if (name !== undefined) names.set(name, pair);
  }
  return { names, collisions };
}

/**
 * Tool patterns, matched against the (server, tool) pair, never a joined string:
 * `<server>/<tool>` (split at the first `/`: server names hold none) matches the server's
 * name with its first part and the tool's own name with the rest; `<tool>` (no `/`) matches
 * the tool's name on any server. `*` matches any run of characters; a leading `!` denies.
 * A tool whose own name holds a `/` is matched by `<server>/<name>` (with `*` as the server: on any server).
 */
export function toolFilter(patterns: readonly string[]): (server: string, tool: string) => boolean {
  type Pattern = { server: RegExp | undefined; tool: RegExp };
  const allow: Pattern[] = [];
  const deny: Pattern[] = [];
  for (const raw of patterns)
    for (const part of raw.split(',')) {
      const p = part.trim().replace(/^!/, '');
      if (!p) continue;
      const slash = p.indexOf('/');
      const pattern: Pattern =
        slash < 0
          ? { server: undefined, tool: globToRegExp(p) }
          : { server: globToRegExp(p.slice(0, slash)), tool: globToRegExp(p.slice(slash + 1)) };
      (part.trim().startsWith('!') ? deny : allow).push(pattern);
    }
  const test = (list: Pattern[], server: string, tool: string) =>
    list.some((p) => (p.server === undefined || p.server.test(server)) && p.tool.test(tool));
  return (server, tool) =>
    (allow.length === 0 || test(allow, server, tool)) && !test(deny, server, tool);
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${body}$`);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

import { createHash } from 'node:crypto';

/** What MCP hosts and model providers accept as a tool name. */
export const EXPOSED_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX = 64;
const SAFE = /^[A-Za-z0-9_-]+$/;

function pairHash(server: string, item: string, salt: string): string {
  return createHash('sha256').update(`${salt}${server}\u0000${item}`).digest('hex').slice(0, 8);
}

function withHash(mapped: string, hash: string): string {
  return `${mapped.slice(0, MAX - hash.length - 1)}_${hash}`;
}

/**
 * The gateway's name for a backend's tool or prompt: `<server><separator><item>`, under the
 * manager's host-safe rules. A name depends only on its own pair (stable across restarts and
 * whatever other servers come and go); a pair that would not read back unambiguously, or is
 * too long, is mapped to safe characters and ends in `_` plus a hash of the original pair.
 */
export function exposedName(server: string, item: string, separator: string): string {
  const plain = `${server}${separator}${item}`;
  const unambiguous =
    SAFE.test(server) &&
    SAFE.test(item) &&
    SAFE.test(separator) &&
    !server.includes(separator) &&
    !server.endsWith('_');
  if (unambiguous && plain.length <= MAX) return plain;
  return withHash(plain.replace(/[^A-Za-z0-9_-]/g, '_'), pairHash(server, item, ''));
}

export interface NamedPair {
  server: string;
  item: string;
}

/**
 * Names every pair, in (server, item) order. Pairs that meet on one name are both kept: the
 * later gets a salted hash, and the collision is returned for a warning. With `prefix: false`
 * (one server, `--no-prefix`) the backend's names pass through unchanged.
 */
export function nameAll(
  pairs: readonly NamedPair[],
  options: { separator: string; prefix: boolean },
): { names: Map<string, NamedPair>; collisions: Array<{ name: string; kept: NamedPair[] }> } {
  const names = new Map<string, NamedPair>();
  const collisions: Array<{ name: string; kept: NamedPair[] }> = [];
  const sorted = [...pairs].sort((a, b) =>
    a.server === b.server ? cmp(a.item, b.item) : cmp(a.server, b.server),
  );
  for (const pair of sorted) {
    const base = options.prefix
      ? exposedName(pair.server, pair.item, options.separator)
      : pair.item;
    let name = base;
    const other = names.get(name);
    if (other) {
      if (other.server === pair.server && other.item === pair.item) continue;
      let salt = 1;
      while (names.has(name))
        name = withHash(
          base.replace(/[^A-Za-z0-9_-]/g, '_'),
          pairHash(pair.server, pair.item, `${salt++}:`),
        );
      collisions.push({ name: base, kept: [other, pair] });
    }
    names.set(name, pair);
  }
  return { names, collisions };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `--tools` patterns: `*` matches any run of characters; a leading `!` denies. */
export function toolFilter(patterns: readonly string[]): (server: string, tool: string) => boolean {
  const allow: RegExp[] = [];
  const deny: RegExp[] = [];
  for (const raw of patterns)
    for (const part of raw.split(',')) {
      const p = part.trim();
      if (!p) continue;
      (p.startsWith('!') ? deny : allow).push(globToRegExp(p.replace(/^!/, '')));
    }
  // A pattern matches `<server>/<tool>` or the bare tool name (the same for every server).
  const test = (res: RegExp[], server: string, tool: string) =>
    res.some((re) => re.test(`${server}/${tool}`) || re.test(tool));
  return (server, tool) =>
    (allow.length === 0 || test(allow, server, tool)) && !test(deny, server, tool);
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${body}$`);
}

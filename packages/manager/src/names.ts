import { createHash } from 'node:crypto';

/** Model providers reject tool names outside this pattern. */
export const HOST_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const HOST_NAME_MAX = 64;

const SAFE = /^[A-Za-z0-9_-]+$/;
const HASH_CHARS = 8;

/** A short hash of the original pair: stable across runs and machines. */
function pairHash(server: string, item: string, salt = ''): string {
  return createHash('sha256')
    .update(`${salt}${server}\u0000${item}`)
    .digest('hex')
    .slice(0, HASH_CHARS);
}

/** How host names are made: `<prefix><separator><server><separator><item>`. */
export interface NamingOptions {
  /** Before the server's name; `''` for none (`<server><separator><item>`). Default `mcp`. */
  prefix?: string;
  /** Between the parts. Default `__`. */
  separator?: string;
}

/**
 * The host-safe name of a server's tool (or prompt): `mcp__<server>__<tool>` by default
 * (`naming` changes the prefix and the separator; a string is the prefix).
 *
 * A name depends only on its own pair, never on which other servers are present, so it is
 * the same across restarts and as servers come and go:
 * - when the pair reads back unambiguously (both parts already safe, the server name does not
 *   contain the separator or end in `_`) and fits in 64 characters, it is used as is;
 * - otherwise characters outside `[A-Za-z0-9_-]` become `_`, the name is cut to leave room,
 *   and it ends in `_` plus a short hash of the original pair — so `read.file` and
 *   `read_file` never collapse into one name.
 */
export function hostName(
  server: string,
  item: string,
  naming: string | NamingOptions = 'mcp',
): string {
  const { prefix = 'mcp', separator = '__' } =
    typeof naming === 'string' ? { prefix: naming } : naming;
  const pair = `${server}${separator}${item}`;
  const plain = prefix === '' ? pair : `${prefix}${separator}${pair}`;
  const unambiguous =
    SAFE.test(server) &&
    SAFE.test(item) &&
    SAFE.test(separator) &&
    !server.includes(separator) &&
    !server.endsWith('_');
  if (unambiguous && plain.length <= HOST_NAME_MAX) return plain;
  return withHash(plain.replace(/[^A-Za-z0-9_-]/g, '_'), pairHash(server, item));
}

function withHash(mapped: string, hash: string): string {
  const room = HOST_NAME_MAX - hash.length - 1;
  return `${mapped.slice(0, room)}_${hash}`;
}

export interface NameEntry {
  server: string;
  item: string;
}

/**
 * Names of every listed pair, with a reverse map. Two pairs that still meet on one name
 * (possible only by a hash coincidence or a tool literally named like another's mapped
 * form) are both kept: the later one, in (server, item) order, gets a salted hash, and
 * the collision is reported.
 */
export class NameRegistry {
  private readonly byName = new Map<string, NameEntry>();
  private readonly byPair = new Map<string, string>();

  constructor(private readonly naming: string | NamingOptions = 'mcp') {}

  /** Rebuilds the map from every pair; returns the collisions found (for a warning). */
  rebuild(pairs: readonly NameEntry[]): Array<{ name: string; kept: NameEntry[] }> {
    this.byName.clear();
    this.byPair.clear();
    const collisions: Array<{ name: string; kept: NameEntry[] }> = [];
    const sorted = [...pairs].sort((a, b) =>
      a.server === b.server ? cmp(a.item, b.item) : cmp(a.server, b.server),
    );
    for (const pair of sorted) {
      const key = pairKey(pair);
      if (this.byPair.has(key)) continue;
      let name = hostName(pair.server, pair.item, this.naming);
      const other = this.byName.get(name);
      if (other) {
        let salt = 1;
        let next = name;
        while (this.byName.has(next))
          next = withHash(name, pairHash(pair.server, pair.item, `${salt++}:`));
        collisions.push({ name, kept: [other, pair] });
        name = next;
      }
      this.byName.set(name, pair);
      this.byPair.set(key, name);
    }
    return collisions;
  }

  nameOf(server: string, item: string): string | undefined {
    return this.byPair.get(pairKey({ server, item }));
  }

  resolve(name: string): NameEntry | undefined {
    return this.byName.get(name);
  }
}

const pairKey = (p: NameEntry) => `${p.server}\u0000${p.item}`;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

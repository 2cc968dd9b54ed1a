import { exposedName, type NamedPair, nameAll } from '../exposed-names.js';

export interface ComposeNamesOptions {
  separator: string;
  /** The gateway's own `naming.prefix` (false: one server, names unchanged). */
  prefix: boolean;
  /** A server's prefix from the config: another label, none (`false`), or its name (`undefined`). */
  labelOf: (server: string) => string | false | undefined;
  /** The whole name the config gives a pair, if any. */
  fixedName: (server: string, item: string) => string | undefined;
}

type Collision = { name: string; kept: NamedPair[] };

/**
 * Names every pair as `nameAll` does, with a config's names first: a tool the config names
 * gets that name, a server without a prefix gives its names unchanged, a server with its
 * own prefix is named under it. A pair whose name is already taken keeps a prefixed
 * (host-safe, salted) name and the collision is returned for a warning, as `nameAll` does.
 * Without any such entry in the config, this is `nameAll`.
 */
export function composeNames(
  pairs: readonly NamedPair[],
  options: ComposeNamesOptions,
): { names: Map<string, NamedPair>; collisions: Collision[] } {
  const { separator, labelOf, fixedName } = options;
  const custom = pairs.some(
    (p) => labelOf(p.server) !== undefined || fixedName(p.server, p.item) !== undefined,
  );
  if (!custom) return nameAll(pairs, { separator, prefix: options.prefix });
  const names = new Map<string, NamedPair>();
  const collisions: Collision[] = [];
  const fallback = (pair: NamedPair, taken: string) => {
    const label = labelOf(pair.server) || pair.server;
    let name = exposedName(label, pair.item, separator);
    for (let n = 2; names.has(name); n++) name = exposedName(label, `${pair.item}#${n}`, separator);
    names.set(name, pair);
    collisions.push({ name: taken, kept: [names.get(taken)!, pair] });
  };
  const place = (pair: NamedPair, name: string) => {
    if (names.has(name)) fallback(pair, name);
    else names.set(name, pair);
  };
  const rest: NamedPair[] = [];
  const bare: NamedPair[] = [];
  for (const pair of pairs) {
    const fixed = fixedName(pair.server, pair.item);
    if (fixed !== undefined) place(pair, fixed);
    else if (
      labelOf(pair.server) === false ||
      (!options.prefix && labelOf(pair.server) === undefined)
    )
      bare.push(pair);
    else rest.push(pair);
  }
  for (const pair of bare) place(pair, pair.item);
  for (const pair of rest)
    place(pair, exposedName(labelOf(pair.server) || pair.server, pair.item, separator));
  return { names, collisions };
}

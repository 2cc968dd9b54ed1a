/** `${VAR}` or `${VAR:-default}`. */
const PATTERN = /\$\{([^}]+)\}/g;

export interface Expansion {
  value: string;
  /** Variables with no value and no default (left as written). */
  missing: string[];
}

/** Expands `${VAR}` and `${VAR:-default}` from `env`; unknown variables stay as written. */
export function expandString(
  input: string,
  env: Readonly<Record<string, string | undefined>>,
): Expansion {
  const missing: string[] = [];
  const value = input.replace(PATTERN, (match, body: string) => {
    const sep = body.indexOf(':-');
    const name = sep === -1 ? body : body.slice(0, sep);
    const fallback = sep === -1 ? undefined : body.slice(sep + 2);
    // Own properties only: `${constructor}` or `${__proto__}` must never read what an
    // object inherits.
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    if (found !== undefined && !(fallback !== undefined && found === '')) return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return match;
  });
  return { value, missing };
}

/** The fields of a server entry that are expanded. */
export const EXPANDED_FIELDS = ['command', 'args', 'env', 'url', 'headers'] as const;

/**
 * Expands a server entry's `command`, `args`, `env`, `url` and `headers`. Reports each
 * missing variable with the JSON path (relative to the entry) where it appears.
 */
export function expandServer<T extends Record<string, unknown>>(
  entry: T,
  env: Readonly<Record<string, string | undefined>>,
): { entry: T; missing: Array<{ variable: string; path: Array<string | number> }> } {
  const missing: Array<{ variable: string; path: Array<string | number> }> = [];
  const out: Record<string, unknown> = { ...entry };
  const one = (value: string, path: Array<string | number>): string => {
    const r = expandString(value, env);
    for (const variable of r.missing) missing.push({ variable, path });
    return r.value;
  };
  if (typeof entry.command === 'string') out.command = one(entry.command, ['command']);
  if (typeof entry.url === 'string') out.url = one(entry.url, ['url']);
  if (Array.isArray(entry.args)) {
    out.args = entry.args.map((a, i) => (typeof a === 'string' ? one(a, ['args', i]) : a));
  }
  for (const field of ['env', 'headers'] as const) {
    const map = entry[field];
    if (map && typeof map === 'object' && !Array.isArray(map)) {
      // A null prototype: keys are the user's, and `__proto__` is just a name here.
      const copy: Record<string, unknown> = Object.create(null);
      for (const [k, v] of Object.entries(map as Record<string, unknown>))
        copy[k] = typeof v === 'string' ? one(v, [field, k]) : v;
      out[field] = copy;
    }
  }
  return { entry: out as T, missing };
}

/** The name in `${NAME}` or `${NAME:-default}`. */
const variableName = (body: string) => {
  const sep = body.indexOf(':-');
  return sep === -1 ? body : body.slice(0, sep);
};

/**
 * Every variable an entry reads (in `command`, `args`, `env`, `url` and `headers`), set or
 * not, in order of first use: what a user should see before approving it.
 */
export function referencedVariables(entry: Record<string, unknown>): string[] {
  const found = new Set<string>();
  const scan = (value: unknown) => {
    if (typeof value !== 'string') return;
    for (const m of value.matchAll(PATTERN)) found.add(variableName(m[1]!));
  };
  scan(entry.command);
  scan(entry.url);
  if (Array.isArray(entry.args)) entry.args.forEach(scan);
  for (const field of ['env', 'headers'] as const) {
    const map = entry[field];
    if (map && typeof map === 'object' && !Array.isArray(map)) Object.values(map).forEach(scan);
  }
  return [...found];
}

import type { ServerConfig } from './schemas.js';

/** What every hidden value is replaced with. */
export const REDACTED = '***';

/** Secrets shorter than this are not scrubbed from free text: they would match everywhere. */
export const MIN_SECRET_LENGTH = 4;

// Schemes whose URLs the WHATWG parser treats as "special": `\` ends the authority like `/`,
// and slashes after the scheme are optional.
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

const redactPairs = (part: string): string =>
  part
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq >= 0) return `${pair.slice(0, eq)}=${REDACTED}`;
      // A bare `?token` is all value: there is no key to keep.
      return pair === '' ? pair : REDACTED;
    })
    .join('&');

/**
 * A URL fit for printing: user info becomes `***` (`***:***` with a password), every query
 * value becomes `***` (keys kept), and so do fragment values written as `k=v`.
 * Works on the text as written (so `${VAR}` left in a URL stays readable), splitting it
 * where the WHATWG parser would; a string that is not a URL comes back unchanged.
 */
export function redactUrl(url: string): string {
  // The parser drops tabs and newlines anywhere and trims C0 controls and spaces: so do we,
  // so that our split sees the same authority as the transport will.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: those are the characters the URL parser strips
  const text = url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(text)?.[0];
  if (!scheme) return url;
  const special = SPECIAL.has(scheme.toLowerCase());
  let at = scheme.length;
  let out = text.slice(0, at);
  const slashes = special
    ? /^[/\\]*/.exec(text.slice(at))![0]
    : text.startsWith('//', at)
      ? '//'
      : '';
  if (slashes || special) {
    out += slashes;
    at += slashes.length;
    const rest = text.slice(at);
    const end = rest.search(special ? /[/?#\\]/ : /[/?#]/);
    const authority = end === -1 ? rest : rest.slice(0, end);
    const lastAt = authority.lastIndexOf('@');
    if (lastAt >= 0) {
      const userinfo = authority.slice(0, lastAt);
      out += `${userinfo.includes(':') ? `${REDACTED}:${REDACTED}` : REDACTED}@`;
      out += authority.slice(lastAt + 1);
    } else out += authority;
    at += authority.length;
  }
  const tail = text.slice(at);
  const hash = tail.indexOf('#');
  const beforeHash = hash === -1 ? tail : tail.slice(0, hash);
  const fragment = hash === -1 ? undefined : tail.slice(hash + 1);
  const q = beforeHash.indexOf('?');
  out +=
    q === -1 ? beforeHash : `${beforeHash.slice(0, q)}?${redactPairs(beforeHash.slice(q + 1))}`;
  if (fragment !== undefined)
    out += `#${fragment.includes('=') ? redactPairs(fragment) : fragment}`;
  return out;
}

const SECRET_KEY = /secret|token|password|passwd|credential|api[-_]?key|private/i;

const hideValues = (map: unknown): Record<string, string> | undefined => {
  if (!map || typeof map !== 'object' || Array.isArray(map)) return undefined;
  const out: Record<string, string> = Object.create(null);
  for (const key of Object.keys(map)) out[key] = REDACTED;
  return out;
};

/**
 * A copy of an entry fit for printing: every header and env value is `***` (names kept),
 * the URL goes through `redactUrl`, secret-like fields (`authToken`, `oauth.clientSecret`…)
 * are `***`. `headersHelper` stays: it is a command, not a secret.
 */
export function redactServerConfig<T extends ServerConfig>(config: T): T {
  const out: Record<string, unknown> = { ...config };
  const source = config as Record<string, unknown>;
  for (const field of ['env', 'headers']) {
    const hidden = hideValues(source[field]);
    if (hidden) out[field] = hidden;
  }
  if (typeof source.url === 'string') out.url = redactUrl(source.url);
  for (const key of Object.keys(source)) {
    if (SECRET_KEY.test(key) && typeof source[key] === 'string') out[key] = REDACTED;
  }
  const oauth = source.oauth;
  if (oauth && typeof oauth === 'object' && !Array.isArray(oauth)) {
    const copy: Record<string, unknown> = { ...oauth };
    for (const key of Object.keys(copy)) if (SECRET_KEY.test(key)) copy[key] = REDACTED;
    out.oauth = copy;
  }
  return out as T;
}

function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const out = [parsed.username, parsed.password];
  // Both spellings: the one in the config and the one a message might print decoded.
  for (const raw of [parsed.username, parsed.password]) {
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      // Not valid percent-encoding: the raw form is enough.
    }
  }
  for (const value of parsed.searchParams.values()) out.push(value);
  for (const part of parsed.search.slice(1).split('&')) {
    const eq = part.indexOf('=');
    out.push(eq === -1 ? part : part.slice(eq + 1));
  }
  return out;
}

/**
 * The raw secret strings of an entry (header and env values, URL user info and query
 * values, secret-like fields), each at least `MIN_SECRET_LENGTH` long, longest first: for a
 * scrubber that hides them wherever they appear in printed text.
 */
export function secretValues(config: ServerConfig): string[] {
  const source = config as Record<string, unknown>;
  const found: string[] = [];
  for (const field of ['env', 'headers']) {
    const map = source[field];
    if (map && typeof map === 'object' && !Array.isArray(map))
      for (const v of Object.values(map)) if (typeof v === 'string') found.push(v);
  }
  if (typeof source.url === 'string') found.push(...urlSecrets(source.url));
  for (const key of Object.keys(source))
    if (SECRET_KEY.test(key) && typeof source[key] === 'string') found.push(source[key] as string);
  const oauth = source.oauth;
  if (oauth && typeof oauth === 'object' && !Array.isArray(oauth))
    for (const [k, v] of Object.entries(oauth))
      if (SECRET_KEY.test(k) && typeof v === 'string') found.push(v);
  // `${VAR}` left as written (not set) is a name, not a secret: only what remains counts.
  const real = (s: string) => s.replace(/\$\{[^}]*\}/g, '').length >= MIN_SECRET_LENGTH;
  return [...new Set(found.filter((s) => s.length >= MIN_SECRET_LENGTH && real(s)))].sort(
    (a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0),
  );
}

/**
 * Replaces every occurrence of each secret in `text` (as written, or escaped inside a JSON
 * string) with `***`, longest secrets first.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const ordered = [...secrets]
    .filter((s) => s.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) {
    out = out.split(secret).join(REDACTED);
    // The same secret inside a JSON document is escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.split(escaped).join(REDACTED);
  }
  return out;
}

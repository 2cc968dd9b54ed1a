import type { ServerConfig } from './schemas.js';

/** What every hidden value is replaced with. */
export const REDACTED = '***';

/** Secrets shorter than this are not scrubbed from typed text: they would match everywhere. */
export const MIN_SECRET_LENGTH = 4;

// Schemes whose URLs the WHATWG parser treats as "special": `\` ends the authority like `/`,
// and slashes after the scheme are optional.
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/**
 * Whether a name (an env key, a query or fragment key, a field) names a credential: a token,
 * key, secret, password, credential, auth value, cookie, session, signature or private key.
 * `NODE_ENV`, `LOG_LEVEL`, `ALLOW_DANGEROUS`, `page` do not.
 */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

const CREDENTIAL_NAME =
  /token|secret|passw|passphrase|pwd|credential|auth|cookie|session|private|key|(?:^|[^a-z])(?:pass|sig|signature|jwt)(?:$|[^a-z])/i;

// A key as written and as a server would decode it (`%74oken` is `token`).
const credentialKey = (raw: string): boolean => {
  if (isCredentialName(raw)) return true;
  try {
    return isCredentialName(decodeURIComponent(raw.replace(/\+/g, ' ')));
  } catch {
    return false;
  }
};

const redactPairs = (part: string): string =>
  part
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq >= 0) {
        const key = pair.slice(0, eq);
        return credentialKey(key) ? `${key}=${REDACTED}` : pair;
      }
      // A bare `?sk-live-…` is all value: with no key to judge it by, it is hidden.
      return pair === '' ? pair : REDACTED;
    })
    .join('&');

/**
 * A URL fit for printing: user info becomes `***` (`***:***` with a password); a query or
 * fragment value becomes `***` when its key names a credential (`api_key`, `access_token`,
 * `sig`…; see `isCredentialName`) or when it has no key at all (`?sk-…`). Other values
 * (`page=2`) stay: they are the URL, not a secret.
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

/**
 * A copy of an entry fit for printing, masked by position: every header value is `***`
 * (names kept), an env value is `***` when its key names a credential (`API_TOKEN`,
 * `DB_PASSWORD`; not `NODE_ENV` or `LOG_LEVEL`), the URL goes through `redactUrl`,
 * secret-like fields (`authToken`, `oauth.clientSecret`…) are `***`. Everything else —
 * `command`, `args`, `headersHelper`, other env values — is shown as written: the user
 * must see what would run.
 */
export function redactServerConfig<T extends ServerConfig>(config: T): T {
  const out: Record<string, unknown> = { ...config };
  const source = config as Record<string, unknown>;
  const headers = source.headers;
  if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
    const hidden: Record<string, string> = Object.create(null);
    for (const key of Object.keys(headers)) hidden[key] = REDACTED;
    out.headers = hidden;
  }
  const env = source.env;
  if (env && typeof env === 'object' && !Array.isArray(env)) {
    const shown: Record<string, unknown> = Object.create(null);
    for (const [key, value] of Object.entries(env))
      shown[key] = isCredentialName(key) ? REDACTED : value;
    out.env = shown;
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
  for (const [key, value] of parsed.searchParams) if (isCredentialName(key)) out.push(value);
  for (const part of parsed.search.slice(1).split('&')) {
    const eq = part.indexOf('=');
    if (eq === -1) out.push(part);
    else if (credentialKey(part.slice(0, eq))) out.push(part.slice(eq + 1));
  }
  return out;
}

/**
 * The raw credential strings of an entry — what `redactServerConfig` hides: header values,
 * env values under credential names, URL user info and credential query values, secret-like
 * fields — each at least `MIN_SECRET_LENGTH` long, longest first. For text the user typed
 * (a shell history line), never for what a server sent: a server's output is data.
 */
export function secretValues(config: ServerConfig): string[] {
  const source = config as Record<string, unknown>;
  const found: string[] = [];
  const headers = source.headers;
  if (headers && typeof headers === 'object' && !Array.isArray(headers))
    for (const v of Object.values(headers)) if (typeof v === 'string') found.push(v);
  const env = source.env;
  if (env && typeof env === 'object' && !Array.isArray(env))
    for (const [k, v] of Object.entries(env))
      if (typeof v === 'string' && isCredentialName(k)) found.push(v);
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
 * string) with `***`, longest secrets first. For text the user typed (a history line); never
 * run it over what a server sent, which it would rewrite wherever a value happens to occur.
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

import { UnsafeEndpointError } from './errors.js';
import { redact } from './redact.js';

/**
 * The one rule for every URL the auth package fetches, posts to or opens in a browser
 * when that URL came from someone else (metadata documents, a `WWW-Authenticate`
 * challenge, a redirect, a server's config): an absolute `https:` URL, or `http:` on a
 * loopback host; no user info, no fragment; only the characters RFC 3986 allows (no
 * spaces, quotes, pipes, backslashes, control characters or raw non-ASCII), so what is
 * checked is exactly what is used.
 */

/** Longest endpoint accepted: longer is not an endpoint anyone publishes. */
const MAX_ENDPOINT_LENGTH = 2048;

// RFC 3986 unreserved, reserved and '%'. Anything else would be changed by the URL
// parser (tabs and newlines dropped, spaces escaped), so the checked and the used text
// could differ; or it is a character that has caused shell and opener bugs.
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

/** Where an endpoint came from, for the error message. */
export interface EndpointSource {
  /** `server "x"` or the server's URL. */
  label: string;
  /** The field or parameter, e.g. `authorization_endpoint`. */
  field: string;
  /** The document or place, e.g. `the authorization-server metadata at https://…`. */
  where: string;
  /** What the user can do about it. Default: the server's operator must fix its metadata. */
  fix?: string;
}

/** Whether `hostname` (as the WHATWG URL parser gives it) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname === '[::1]' ||
    // The parser writes every IPv4 spelling (127.1, 0x7f.1, 2130706433) as dotted decimal.
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * A value safe to show in one line of an error message: user info and secrets redacted,
 * cut to 200 characters, control characters, quotes and backslashes escaped.
 */
export function showValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const hidden = redact(text.replace(/\/\/[^/?#@\s]*@/g, '//[redacted]@'));
  const cut = hidden.length > 200 ? `${hidden.slice(0, 200)}…` : hidden;
  return cut.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029"\\]/g,
    (c) =>
      c === '"' || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function why(value: unknown, base: string | URL | undefined): string | URL {
  if (typeof value !== 'string') return 'is not a string';
  if (value.length === 0) return 'is empty';
  if (value.length > MAX_ENDPOINT_LENGTH) return `is longer than ${MAX_ENDPOINT_LENGTH} characters`;
  const bad = [...value].find((c) => !URI_CHARS.test(c));
  if (bad !== undefined) {
    const code = bad.codePointAt(0)!;
    const name =
      bad === ' '
        ? 'a space'
        : bad === '"'
          ? 'a double quote'
          : bad === '\\'
            ? 'a backslash'
            : code < 0x20 || (code >= 0x7f && code <= 0x9f)
              ? 'a control character'
              : `the character "${showValue(bad)}"`;
    return `contains ${name}, which a URL may not hold unescaped`;
  }
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `has the scheme "${url.protocol.slice(0, -1)}", and only https (or http to this machine) is used`;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return `is plain http to ${url.hostname}, which is not this machine (only https is used there)`;
  if (url.username !== '' || url.password !== '') return 'carries user info (user:password@)';
  if (url.hash !== '') return 'has a fragment (#…)';
  return url;
}

/**
 * `value` as a URL if it follows the endpoint rule (relative values resolve against
 * `base`, as a `resource_metadata` may); otherwise `UnsafeEndpointError` naming the
 * server, the field, the (redacted) value and what to do.
 */
export function checkEndpoint(value: unknown, source: EndpointSource, base?: string | URL): URL {
  const verdict = why(value, base);
  if (typeof verdict !== 'string') return verdict;
  const shown = showValue(value);
  throw new UnsafeEndpointError(
    `${source.label}: ${source.field} "${shown}" from ${source.where} ${verdict}; refusing to use it. ${
      source.fix ??
      "The server's authorization setup is broken or hostile: ask its operator to fix it"
    }`,
    source.field,
    shown,
  );
}

/** Fields of authorization-server metadata (RFC 8414, OpenID discovery) that are URLs we may call. */
export const metadataEndpointFields = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'registration_endpoint',
  'revocation_endpoint',
  'introspection_endpoint',
  'jwks_uri',
  'userinfo_endpoint',
  'pushed_authorization_request_endpoint',
  'device_authorization_endpoint',
  'end_session_endpoint',
] as const;

/**
 * Checks every endpoint an authorization-server metadata document gives, before any of
 * them is used: one bad endpoint means the document is not trusted at all.
 */
export function checkMetadataEndpoints(
  doc: Record<string, unknown>,
  label: string,
  where: string,
): void {
  for (const field of metadataEndpointFields) {
    if (doc[field] === undefined) continue;
    checkEndpoint(doc[field], { label, field, where });
  }
}

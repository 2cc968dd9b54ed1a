/**
 * `serverUrl` policy rules, matched on parsed URLs: what is compared is where a transport
 * would connect (scheme, host, effective port) and the path it would ask for, never the
 * spelling. Both the rule and the server URL go through the WHATWG URL parser, the one
 * every transport uses, so `127.0.0.%31`, `2130706433`, `EXAMPLE.com.`, `h\mcp` or a
 * full-width dot mean to the rule what they mean to the connection.
 */

const DEFAULT_PORTS: Readonly<Record<string, string>> = {
  'http:': '80',
  'https:': '443',
  'ws:': '80',
  'wss:': '443',
};

/** A parsed URL reduced to what a rule looks at. */
export interface UrlParts {
  /** `http:`, lower case. */
  scheme: string;
  /** Lower case, IDNA applied, IPv4 in dotted form, no trailing dot; `[…]` for IPv6. */
  host: string;
  /** Always filled: the default port of the scheme when none is written. */
  port: string;
  /** Percent-encoding of unreserved characters decoded, other escapes in upper case. */
  path: string;
  /** `?…`, or empty. */
  search: string;
  /** The URL has `user@` or `user:password@`. */
  hasUserInfo: boolean;
}

export interface UrlRule {
  /** `*` when the rule has no scheme. */
  scheme: string;
  host: RegExp;
  /** `*` for any port. */
  port: string;
  /** Undefined: any path. */
  path?: RegExp;
  /** The rule names a query: match it against path and query together. */
  withSearch: boolean;
}

const UNRESERVED = /%(2[DdEe]|3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]|7[0-9Aa]|7[Ee])/g;

/** `%6D` → `m`, `%2f` → `%2F`: two spellings of one path compare equal. */
function normalizePath(path: string): string {
  return path
    .replace(UNRESERVED, (e) => String.fromCharCode(Number.parseInt(e.slice(1), 16)))
    .replace(/%[0-9a-f]{2}/gi, (e) => e.toUpperCase());
}

const stripDot = (host: string) => (host.endsWith('.') ? host.slice(0, -1) : host);

/** Parses a server URL the way a transport would; `undefined` when it is not a URL. */
export function urlParts(url: string): UrlParts | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = parsed.protocol;
  return {
    scheme,
    host: stripDot(parsed.hostname),
    port: parsed.port || DEFAULT_PORTS[scheme] || '',
    path: normalizePath(parsed.pathname),
    search: parsed.search,
    hasUserInfo: parsed.username !== '' || parsed.password !== '',
  };
}

function glob(text: string, flags = ''): RegExp {
  const body = text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${body}$`, flags);
}

// Stand-ins for wildcards the URL parser would refuse (`:*` as a port, a rule without a
// scheme). Neither can appear in a parsed host.
const ANY_PORT = ':65535';
const ANY_SCHEME = 'http://';

/**
 * Parses a `serverUrl` rule: `https://api.example/mcp`, `https://*.corp.example`,
 * `http://127.0.0.1:*`, `api.example/*` (any scheme). `*` in the host matches within the
 * parsed host name only; a rule without a path, or with the path `/` or `/*`, matches
 * every path (including none); a port left out means the scheme's default port.
 */
export function parseUrlRule(rule: string): UrlRule | { error: string } {
  const hasScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(rule);
  let text = hasScheme ? rule : `${ANY_SCHEME}${rule}`;
  const anyPort = /^[^/?#]*:\/\/[^/?#]*:\*(?=[/?#]|$)/.test(text);
  if (anyPort) text = text.replace(/^([^/?#]*:\/\/[^/?#]*):\*/, `$1${ANY_PORT}`);
  const parts = urlParts(text);
  if (!parts || parts.host === '')
    return { error: `"${rule}" is not a URL rule such as "https://*.corp.example/mcp"` };
  if (parts.hasUserInfo) return { error: `"${rule}": a rule cannot contain user info` };
  const scheme = hasScheme ? parts.scheme : '*';
  // A rule without a scheme has no default port: it means any port.
  const port = anyPort || (!hasScheme && !/^[^/?#]*:\d/.test(rule)) ? '*' : parts.port;
  const wholePath = parts.path === '/' || parts.path === '/*';
  return {
    scheme,
    host: glob(parts.host, 'i'),
    port,
    ...(wholePath && !parts.search ? {} : { path: glob(parts.path + parts.search) }),
    withSearch: parts.search !== '',
  };
}

/** Whether a parsed server URL falls under a parsed rule. */
export function ruleMatches(rule: UrlRule, url: UrlParts): boolean {
  if (rule.scheme !== '*' && rule.scheme !== url.scheme) return false;
  if (!rule.host.test(url.host)) return false;
  if (rule.port !== '*' && rule.port !== url.port) return false;
  if (!rule.path) return true;
  return rule.path.test(rule.withSearch ? url.path + url.search : url.path);
}

/**
 * Whether `url` falls under the rule `pattern`, comparing parsed URLs (see `parseUrlRule`).
 * A URL or rule that cannot be parsed matches nothing.
 */
export function urlMatches(pattern: string, url: string): boolean {
  const rule = parseUrlRule(pattern);
  const parts = urlParts(url);
  return !('error' in rule) && parts !== undefined && ruleMatches(rule, parts);
}

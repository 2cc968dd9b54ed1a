/** The `Bearer` (or `DPoP`) challenge of a `WWW-Authenticate` header (RFC 6750, RFC 9728, RFC 9449). */
export interface BearerChallenge {
  error?: string;
  errorDescription?: string;
  /** Space-separated scopes the resource asks for. */
  scope?: string;
  /** Where the protected-resource metadata is (RFC 9728). */
  resourceMetadata?: string;
  realm?: string;
  /** `DPoP` challenges: the proof algorithms the resource accepts, space-separated (RFC 9449 7.1). */
  algs?: string;
}

/** The challenges of one `WWW-Authenticate` value that concern a token. */
export interface AuthChallenges {
  bearer?: BearerChallenge;
  dpop?: BearerChallenge;
}

/** Parses the challenge of `scheme` out of a `WWW-Authenticate` value; `undefined` if none. */
function parseScheme(header: string, scheme: 'Bearer' | 'DPoP'): BearerChallenge | undefined {
  const at = header.search(new RegExp(`(^|[\\s,])${scheme}(\\s|$)`, 'i'));
  if (at < 0) return undefined;
  const rest = header.slice(at).replace(new RegExp(`^[\\s,]*${scheme}`, 'i'), '');
  const params: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?/y;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  for (;;) {
    m = re.exec(rest);
    if (!m) break;
    // A new scheme (a token not followed by "=") ends this challenge; the regex stops there.
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  const out: BearerChallenge = {};
  if (params.error) out.error = params.error;
  if (params.error_description) out.errorDescription = params.error_description;
  if (params.scope) out.scope = params.scope;
  if (params.resource_metadata) out.resourceMetadata = params.resource_metadata;
  if (params.realm) out.realm = params.realm;
  if (params.algs) out.algs = params.algs;
  return out;
}

/** Parses the `Bearer` challenge out of a `WWW-Authenticate` value; `undefined` if none. */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  return header ? parseScheme(header, 'Bearer') : undefined;
}

/** The `Bearer` and `DPoP` challenges of a `WWW-Authenticate` value (a resource may offer both). */
export function parseAuthChallenges(header: string | undefined): AuthChallenges {
  if (!header) return {};
  const bearer = parseScheme(header, 'Bearer');
  const dpop = parseScheme(header, 'DPoP');
  return { ...(bearer ? { bearer } : {}), ...(dpop ? { dpop } : {}) };
}

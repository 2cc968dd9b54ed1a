/** The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750, RFC 9728). */
export interface BearerChallenge {
  error?: string;
  errorDescription?: string;
  /** Space-separated scopes the resource asks for. */
  scope?: string;
  /** Where the protected-resource metadata is (RFC 9728). */
  resourceMetadata?: string;
  realm?: string;
}

/** Parses the `Bearer` challenge out of a `WWW-Authenticate` value; `undefined` if none. */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const at = header.search(/(^|[\s,])Bearer(\s|$)/i);
  if (at < 0) return undefined;
  const rest = header.slice(at).replace(/^[\s,]*Bearer/i, '');
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
  return out;
}

/**
 * `WWW-Authenticate: Bearer …` challenges (RFC 6750 §3, RFC 9728 §5.1) as the MCP
 * authorization spec wants them: where the resource's metadata is, and which scopes the
 * request needs.
 */

/** A quoted-string value (RFC 9110 §5.6.4): quotes and backslashes escaped, controls dropped. */
function quoted(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls cannot be in a header
  return `"${value.replace(/[\x00-\x1f\x7f]/g, '').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export interface BearerChallenge {
  /** `invalid_request`, `invalid_token` or `insufficient_scope` (RFC 6750 §3.1); none for a missing token. */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  /** Words for a developer; no token, ever. */
  description?: string;
  /** The scopes the request needs, when there are any. */
  scopes?: readonly string[];
  /** The Protected Resource Metadata document's URL. */
  resourceMetadata?: string;
}

/** The value of a `WWW-Authenticate` header with one Bearer challenge. */
export function bearerChallenge(challenge: BearerChallenge): string {
  const params: string[] = [];
  if (challenge.error) params.push(`error=${quoted(challenge.error)}`);
  if (challenge.description) params.push(`error_description=${quoted(challenge.description)}`);
  if (challenge.scopes && challenge.scopes.length > 0)
    params.push(`scope=${quoted(challenge.scopes.join(' '))}`);
  if (challenge.resourceMetadata)
    params.push(`resource_metadata=${quoted(challenge.resourceMetadata)}`);
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}

/**
 * The challenge of a 403 for a token without the scopes a request needs, so that the client
 * can step up (ask its authorization server again, for these scopes as well).
 */
export function insufficientScope(
  scopes: readonly string[],
  options: { resourceMetadata?: string; description?: string } = {},
): string {
  return bearerChallenge({
    error: 'insufficient_scope',
    scopes,
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.resourceMetadata !== undefined
      ? { resourceMetadata: options.resourceMetadata }
      : {}),
  });
}

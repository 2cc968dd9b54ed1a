/**
 * Keeps secrets out of logs and error messages. Every message `@mcpkit/auth` builds from
 * server responses or URLs goes through `redact`.
 */

const SECRET_PARAMS =
  /\b(access_token|refresh_token|id_token|code|code_verifier|client_secret|client_assertion|assertion|subject_token|password|token)=([^&\s"']+)/gi;
const SECRET_JSON =
  /"(access_token|refresh_token|id_token|client_secret|assertion|subject_token|password|code_verifier)"\s*:\s*"[^"]*"/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

const known = new Set<string>();

/** Registers a secret value: from now on `redact` hides it wherever it appears. */
export function rememberSecret(value: string | undefined): void {
  if (value && value.length >= 8) known.add(value);
}

/** `text` with tokens, codes, secrets and credentials replaced by `[redacted]`. */
export function redact(text: string): string {
  let out = text
    .replace(SECRET_JSON, (_m, key: string) => `"${key}":"[redacted]"`)
    .replace(SECRET_PARAMS, (_m, key: string) => `${key}=[redacted]`)
    .replace(BEARER, (_m, scheme: string) => `${scheme} [redacted]`)
    .replace(JWT, '[redacted jwt]');
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  return out;
}

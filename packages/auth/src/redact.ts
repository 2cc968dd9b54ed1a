/**
 * Keeps secrets out of logs and error messages. Every message `@mcpkit/auth` builds from
 * server responses or URLs goes through `redact`, and every message a provider builds
 * through its own `SecretSet`, which also hides the exact values it has seen.
 */
import { authDefaults } from './defaults.js';

const SECRET_PARAMS =
  /\b(access_token|refresh_token|id_token|code|code_verifier|client_secret|client_assertion|assertion|subject_token|password|token)=([^&\s"']+)/gi;
const SECRET_JSON =
  /"(access_token|refresh_token|id_token|client_secret|assertion|subject_token|password|code_verifier)"\s*:\s*"[^"]*"/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

/** Values shorter than this are not remembered: hiding them would garble ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** `text` with tokens, codes, secrets and credentials replaced by `[redacted]`. */
export function redact(text: string, secrets?: SecretSet): string {
  let out = text
    .replace(SECRET_JSON, (_m, key: string) => `"${key}":"[redacted]"`)
    .replace(SECRET_PARAMS, (_m, key: string) => `${key}=[redacted]`)
    .replace(BEARER, (_m, scheme: string) => `${scheme} [redacted]`)
    .replace(JWT, '[redacted jwt]');
  if (secrets) for (const secret of secrets.values()) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * The secret values one provider (or store) has handled: tokens, client secrets, ID
 * tokens. `redact` hides them wherever they appear, even where no pattern would. Bounded
 * (the most recent `limit` values; a value used again counts as recent) and cleared on
 * logout and close, so a long-running host does not collect every token it ever saw.
 */
export class SecretSet {
  private readonly known = new Set<string>();
  readonly limit: number;

  constructor(limit: number = authDefaults.maxRememberedSecrets) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new TypeError(`SecretSet: limit must be a positive integer, not ${limit}`);
    this.limit = limit;
  }

  /** Registers a secret value: from now on `redact` hides it wherever it appears. */
  remember(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    // Re-inserting moves the value to the end: the oldest is always first.
    this.known.delete(value);
    this.known.add(value);
    while (this.known.size > this.limit) {
      const oldest = this.known.values().next().value as string;
      this.known.delete(oldest);
    }
  }

  has(value: string): boolean {
    return this.known.has(value);
  }

  get size(): number {
    return this.known.size;
  }

  values(): IterableIterator<string> {
    return this.known.values();
  }

  clear(): void {
    this.known.clear();
  }

  /** `text` with patterns and every remembered value redacted. */
  redact(text: string): string {
    return redact(text, this);
  }
}

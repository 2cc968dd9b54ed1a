/**
 * Limits every provider applies unless told otherwise. Whatever an authorization server,
 * a metadata document or a browser does, each step ends within its time and reads at
 * most its bytes.
 */
export const authDefaults = {
  /** The whole of `OAuthProvider.login()`: the browser wait plus the network steps. */
  loginTimeoutMs: 360_000,
  /** How long the loopback listener waits for the browser to come back. */
  interactiveTimeoutMs: 300_000,
  /** Each network step (one metadata document, registration, one token request). */
  requestTimeoutMs: 30_000,
  /** A metadata document, registration or token response (JSON) that answered 2xx. */
  maxResponseBytes: 256 * 1024,
  /** The body of an error answer: only an excerpt (and the OAuth error code) is kept. */
  maxErrorBodyBytes: 4 * 1024,
  /** Redirects followed for one metadata GET (each target is checked like an endpoint). */
  maxRedirects: 5,
  /** Secret values a provider remembers for redaction (the most recent ones). */
  maxRememberedSecrets: 256,
} as const;

/** A positive, finite number a timer can take (at most 2^31 - 1 ms). */
export function checkPositive(name: string, value: number | undefined, max = 2 ** 31 - 1): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max)
    throw new TypeError(`${name} must be a finite number above 0 and at most ${max}, not ${value}`);
}

/**
 * What HTTP transports need from an authorization layer, declared here so that
 * transports do not depend on `@mcpkit/auth` (which implements it).
 */

export interface HttpAuthChallenge {
  /** 401 or 403. */
  status: number;
  /** The `WWW-Authenticate` header, if any (e.g. `Bearer resource_metadata="…", scope="…"`). */
  wwwAuthenticate: string | undefined;
  /** The URL that answered. */
  url: string;
  /**
   * The `Authorization` header the refused request carried, if any: a provider compares
   * it with its current token to tell a stale token (refreshed meanwhile) from a bad one.
   */
  authorization?: string | undefined;
}

/** The value of the `Authorization` header among `headers`, whatever its case. */
export function authorizationOf(headers: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === 'authorization') return v;
  return undefined;
}

export interface HttpAuth {
  /** Headers for the next request (e.g. `{ Authorization: 'Bearer …' }`). */
  headers(): Promise<Record<string, string>> | Record<string, string>;
  /**
   * Called when a request was refused with 401 or 403. Resolve `true` to have the request
   * retried once with fresh `headers()`, `false` to fail it with `HttpError`.
   */
  onUnauthorized(challenge: HttpAuthChallenge): Promise<boolean> | boolean;
}

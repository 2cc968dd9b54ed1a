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
  /** The refused request's method (`POST`, `GET`, `DELETE`). */
  method?: string | undefined;
  /** The `DPoP` proof header the refused request carried, if any. */
  dpop?: string | undefined;
  /** The refusal's `DPoP-Nonce` header (RFC 9449 section 9), if any. */
  dpopNonce?: string | undefined;
  /** How many times this request was already retried after a refusal: 0 the first time. */
  retries?: number | undefined;
}

/** The request an `HttpAuth` gives headers for: a DPoP proof signs its method and URL. */
export interface HttpAuthRequest {
  method: string;
  url: string;
}

/** The value of the `Authorization` header among `headers`, whatever its case. */
export function authorizationOf(headers: Record<string, string>): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === 'authorization') return v;
  return undefined;
}

/** An answer that carried something an `HttpAuth` keeps for the next request. */
export interface HttpAuthResponse {
  /** The URL that answered. */
  url: string;
  status: number;
  /**
   * The answer's `DPoP-Nonce` header: RFC 9449 (sections 8 and 9) lets a server hand out
   * its next nonce on any answer, a 200 included, and expects it in the next proof.
   */
  dpopNonce: string;
}

export interface HttpAuth {
  /**
   * Headers for the next request (e.g. `{ Authorization: 'Bearer …' }`). Transports pass
   * the request's method and URL; an auth that signs them (DPoP) fails without.
   */
  headers(request?: HttpAuthRequest): Promise<Record<string, string>> | Record<string, string>;
  /**
   * Called when a request was refused with 401 or 403. Resolve `true` to have the request
   * retried with fresh `headers()`, `false` to fail it with `HttpError`.
   */
  onUnauthorized(challenge: HttpAuthChallenge): Promise<boolean> | boolean;
  /**
   * How many times one request may be retried after refusals. Default 1. An auth that can
   * be refused twice in a row for different reasons it can fix (a new token, then a DPoP
   * nonce) raises it and decides by `challenge.retries`.
   */
  readonly maxRetries?: number;
  /**
   * Told of every answer that carries a `DPoP-Nonce`, whatever its status, before it is
   * handled (so a refusal reaches `onUnauthorized` after it). Optional.
   */
  onResponse?(response: HttpAuthResponse): void;
}

/**
 * Passes an answer's `DPoP-Nonce` on to `auth.onResponse`, if the answer has one and the
 * auth listens. What transports call on every HTTP answer.
 */
export function noteAuthResponse(
  auth: HttpAuth | undefined,
  url: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
): void {
  if (auth?.onResponse === undefined) return;
  const raw = headers['dpop-nonce'];
  const dpopNonce = Array.isArray(raw) ? raw[0] : raw;
  if (dpopNonce !== undefined) auth.onResponse({ url, status, dpopNonce });
}

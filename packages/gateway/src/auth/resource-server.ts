import { createHash } from 'node:crypto';
import { type AuthInfo, McpkitError } from '@mcpkit/jsonrpc';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  type JWTPayload,
  errors as joseErrors,
  jwtVerify,
} from 'jose';
import { AuthorizationServerUnavailableError, fetchJson } from './fetch-json.js';

/** Where a token is verified against, and what an endpoint asks of it. */
export interface ResourceServerOptions {
  /** The authorization servers' issuer identifiers; a token from any other is refused. */
  issuers: readonly string[];
  /**
   * The `aud` values a token may carry instead of the endpoint's canonical URI (the default:
   * each endpoint is its own resource). A token with none of them is refused.
   */
  audience?: readonly string[];
  /** Scopes a token needs at every endpoint (none by default). */
  scopes?: readonly string[];
  /** Scopes a token needs at `/mcp/<name>`, by name, instead of `scopes`. */
  endpointScopes?: Readonly<Record<string, readonly string[]>>;
  /** JWS algorithms accepted (asymmetric only); `resourceServerDefaults.algorithms` by default. */
  algorithms?: readonly string[];
  /** RFC 7662 introspection, for tokens that are not JWTs. */
  introspection?: { url: string; clientId: string; clientSecret: string };
  /** Leeway for `exp`/`nbf`, in seconds. */
  clockToleranceSec?: number;
  /** Time for one request to an authorization server, in ms. */
  fetchTimeoutMs?: number;
  /** The largest metadata, JWKS or introspection answer read. */
  maxDocumentBytes?: number;
  /** After this, an issuer's keys are fetched again before use (ms). */
  jwksMaxAgeMs?: number;
  /** An unknown `kid` fetches the keys again at most this often per issuer (ms). */
  jwksRefetchCooldownMs?: number;
  /** How long an introspection answer is kept (ms; never past the token's `exp`). */
  introspectionCacheMs?: number;
  /** Introspection answers kept at most. */
  introspectionCacheEntries?: number;
  /**
   * Verified JWTs kept at most (by a SHA-256 of the token), each until it expires or its
   * issuer's keys are fetched again; 0 verifies every request's token afresh.
   */
  verifiedTokenCacheEntries?: number;
}

export const resourceServerDefaults = Object.freeze({
  algorithms: Object.freeze([
    'RS256',
    'RS384',
    'RS512',
    'PS256',
    'PS384',
    'PS512',
    'ES256',
    'ES384',
    'ES512',
    'EdDSA',
    'Ed25519',
  ]),
  clockToleranceSec: 30,
  fetchTimeoutMs: 5000,
  maxDocumentBytes: 256 * 1024,
  jwksMaxAgeMs: 10 * 60_000,
  jwksRefetchCooldownMs: 30_000,
  introspectionCacheMs: 60_000,
  introspectionCacheEntries: 10_000,
  verifiedTokenCacheEntries: 10_000,
});

/** Why a token was refused: the listener answers 401 `invalid_token`. */
export class InvalidTokenError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.InvalidTokenError';
  override readonly name: string = 'InvalidTokenError';
  constructor(
    /** Words for the `error_description` (never the token). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('MCPKIT_GATEWAY_INVALID_TOKEN', reason, options);
  }
}

/** A JWS compact serialization: three base64url parts. */
function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

function scopesOf(claims: Record<string, unknown>): string[] {
  const { scope, scp } = claims;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
}

function authInfoOf(
  kind: 'jwt' | 'introspection',
  claims: Record<string, unknown>,
  token: string,
): AuthInfo {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return Object.freeze({
    kind,
    subject: str(claims.sub),
    clientId: str(claims.client_id) ?? str(claims.azp),
    scopes: Object.freeze(scopesOf(claims)),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    claims: Object.freeze({ ...claims }),
    token,
  });
}

/** What the gateway keeps of one authorization server's keys. */
interface KeyCache {
  jwksUri?: string;
  keys?: ReturnType<typeof createLocalJWKSet>;
  fetchedAt: number;
  /** When keys were last asked for (success or not), for the refetch cooldown. */
  attemptedAt: number;
  pending?: Promise<void>;
}

/** A JWT that passed verification, kept for its next requests. */
interface VerifiedJwt {
  resource: string;
  info: AuthInfo;
  /** The key set it was verified with: once its issuer's keys are fetched again, it is verified again. */
  keys: KeyCache['keys'];
  cache: KeyCache;
  /** Usable from, until (ms, the clock tolerance included). */
  from: number;
  until: number;
}

/**
 * The gateway as an OAuth 2.1 resource server: verifies a bearer token for one endpoint (a
 * JWT against its issuer's published keys, anything else by introspection) and says what
 * the endpoint needs (scopes, metadata). Stateless towards clients; it keeps the issuers'
 * keys, verified JWTs until they expire (with their `AuthInfo`, which holds the token) and,
 * briefly, introspection answers (by a hash of the token, never the token).
 */
export class ResourceServer {
  readonly issuers: readonly string[];
  private readonly options: ResourceServerOptions;
  private readonly algorithms: string[];
  private scopes: Pick<ResourceServerOptions, 'scopes' | 'endpointScopes'>;
  private readonly keyCaches = new Map<string, KeyCache>();
  private readonly introspected = new Map<
    string,
    { until: number; claims?: Record<string, unknown>; refused?: string }
  >();
  private readonly introspecting = new Map<string, Promise<Record<string, unknown>>>();
  private readonly verifiedJwts = new Map<string, VerifiedJwt>();
  /** Requests to authorization servers, for tests and stats. */
  readonly fetches = { metadata: 0, jwks: 0, introspection: 0 };

  constructor(options: ResourceServerOptions) {
    if (options.issuers.length === 0 && !options.introspection)
      throw new TypeError('ResourceServer: at least one issuer or an introspection endpoint');
    for (const issuer of options.issuers) {
      const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash)
        throw new TypeError(`ResourceServer: ${JSON.stringify(issuer)} is not an issuer URL`);
    }
    const algorithms = options.algorithms ?? resourceServerDefaults.algorithms;
    for (const alg of algorithms)
      if (!resourceServerDefaults.algorithms.includes(alg))
        throw new TypeError(
          `ResourceServer: algorithm ${JSON.stringify(alg)} is not allowed (asymmetric ones only: ${resourceServerDefaults.algorithms.join(', ')})`,
        );
    this.options = options;
    this.issuers = [...options.issuers];
    this.algorithms = [...algorithms];
    this.scopes = { scopes: options.scopes, endpointScopes: options.endpointScopes };
  }

  /** The scopes a token needs at an endpoint (`undefined`: `/mcp`). */
  requiredScopes(endpoint: string | undefined): readonly string[] {
    if (endpoint !== undefined && this.scopes.endpointScopes?.[endpoint] !== undefined)
      return this.scopes.endpointScopes[endpoint]!;
    return this.scopes.scopes ?? [];
  }

  /**
   * New scope requirements (a reloaded config): from the next request on. A client whose
   * token lacks a scope now gets 403 `insufficient_scope` and can step up.
   */
  reconfigure(scopes: Pick<ResourceServerOptions, 'scopes' | 'endpointScopes'>): void {
    this.scopes = { ...scopes };
  }

  /** RFC 9728 metadata of the resource `resource` (an endpoint's canonical URI). */
  metadataDocument(resource: string, endpoint: string | undefined): Record<string, unknown> {
    const scopes = this.requiredScopes(endpoint);
    return {
      resource,
      authorization_servers: [...this.issuers],
      ...(scopes.length > 0 ? { scopes_supported: [...scopes] } : {}),
      bearer_methods_supported: ['header'],
      resource_signing_alg_values_supported: [...this.algorithms],
    };
  }

  /**
   * Verifies `token` for the resource `resource`: an `AuthInfo` with what it says, or
   * `InvalidTokenError` (refused), or `AuthorizationServerUnavailableError` (could not tell).
   * Scopes are not checked here (`requiredScopes`).
   */
  async verify(token: string, resource: string): Promise<AuthInfo> {
    const known = this.verifiedBefore(token, resource);
    if (known !== undefined) return known;
    if (looksLikeJwt(token) && this.issuers.length > 0) return this.verifyJwt(token, resource);
    if (this.options.introspection) return this.introspect(token, resource);
    throw new InvalidTokenError('the token is not a JWT and no introspection is configured');
  }

  private audiences(resource: string): string[] {
    return this.options.audience ? [...this.options.audience] : [resource];
  }

  /**
   * The `AuthInfo` of a JWT verified before for the same resource, with the same keys of its
   * issuer, not expired (a client sends one token with each of its requests: its signature
   * is checked once); `undefined` when `verify` must be asked (a new token, keys older than
   * `jwksMaxAgeMs`, an opaque token). Synchronous: what `verify` answers first. Looked up by
   * the token itself: the entry's `AuthInfo` holds the token anyway, and a hash of it cost
   * as much as the rest of a known token's check.
   */
  verifiedBefore(token: string, resource: string): AuthInfo | undefined {
    const hit = this.verifiedJwts.get(token);
    if (hit === undefined) return undefined;
    const now = Date.now();
    if (
      hit.resource === resource &&
      hit.keys === hit.cache.keys &&
      now - hit.cache.fetchedAt <
        (this.options.jwksMaxAgeMs ?? resourceServerDefaults.jwksMaxAgeMs) &&
      now >= hit.from &&
      now < hit.until
    )
      return hit.info;
    this.verifiedJwts.delete(token);
    return undefined;
  }

  private async verifyJwt(token: string, resource: string): Promise<AuthInfo> {
    const max =
      this.options.verifiedTokenCacheEntries ?? resourceServerDefaults.verifiedTokenCacheEntries;
    if (max <= 0) return (await this.verifyJwtNow(token, resource)).info;
    const { info, cache } = await this.verifyJwtNow(token, resource);
    const tolerance =
      (this.options.clockToleranceSec ?? resourceServerDefaults.clockToleranceSec) * 1000;
    const nbf = info.claims.nbf;
    while (this.verifiedJwts.size >= max) {
      const oldest = this.verifiedJwts.keys().next().value;
      if (oldest === undefined) break;
      this.verifiedJwts.delete(oldest);
    }
    this.verifiedJwts.set(token, {
      resource,
      info,
      keys: cache.keys,
      cache,
      from: typeof nbf === 'number' ? nbf * 1000 - tolerance : 0,
      // `exp` is required: verification refuses a token without it.
      until: (info.expiresAt ?? 0) * 1000 + tolerance,
    });
    return info;
  }

  private async verifyJwtNow(
    token: string,
    resource: string,
  ): Promise<{ info: AuthInfo; cache: KeyCache }> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    let unverified: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      unverified = decodeJwt(token);
    } catch (error) {
      throw new InvalidTokenError('the token is not a well-formed JWT', { cause: error });
    }
    if (typeof header.alg !== 'string' || !this.algorithms.includes(header.alg))
      throw new InvalidTokenError(`the token's algorithm ${String(header.alg)} is not accepted`);
    const issuer = unverified.iss;
    if (typeof issuer !== 'string' || !this.issuers.includes(issuer))
      throw new InvalidTokenError('the token is from an issuer this gateway does not trust');
    const cache = await this.keysOf(issuer);
    const getKey = async (
      protectedHeader: Parameters<ReturnType<typeof createLocalJWKSet>>[0],
      jws: Parameters<ReturnType<typeof createLocalJWKSet>>[1],
    ) => {
      try {
        return await cache.keys!(protectedHeader, jws);
      } catch (error) {
        // An unknown kid: the issuer may have rotated its keys. One refetch, rate-limited.
        if (
          error instanceof joseErrors.JWKSNoMatchingKey &&
          Date.now() - cache.attemptedAt >=
            (this.options.jwksRefetchCooldownMs ?? resourceServerDefaults.jwksRefetchCooldownMs)
        ) {
          await this.refreshKeys(issuer, cache);
          return await cache.keys!(protectedHeader, jws);
        }
        throw error;
      }
    };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, getKey, {
        issuer,
        audience: this.audiences(resource),
        algorithms: this.algorithms,
        clockTolerance: this.options.clockToleranceSec ?? resourceServerDefaults.clockToleranceSec,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (AuthorizationServerUnavailableError.isInstance(error)) throw error;
      throw new InvalidTokenError(jwtReason(error), { cause: error });
    }
    // A sender-constrained token (DPoP, mTLS) presented as a plain bearer token.
    if (payload.cnf !== undefined)
      throw new InvalidTokenError('the token is sender-constrained (cnf), not a bearer token');
    return { info: authInfoOf('jwt', payload as Record<string, unknown>, token), cache };
  }

  /** The keys of `issuer`, fetched (metadata, then JWKS) when missing or old. */
  private async keysOf(issuer: string): Promise<KeyCache> {
    let cache = this.keyCaches.get(issuer);
    if (!cache) {
      cache = { fetchedAt: 0, attemptedAt: 0 };
      this.keyCaches.set(issuer, cache);
    }
    const maxAge = this.options.jwksMaxAgeMs ?? resourceServerDefaults.jwksMaxAgeMs;
    if (!cache.keys) await this.refreshKeys(issuer, cache);
    else if (Date.now() - cache.fetchedAt >= maxAge)
      // Old keys stay in use if the refresh fails (the issuer may be down for a moment).
      await this.refreshKeys(issuer, cache).catch(() => {});
    return cache;
  }

  /** One fetch of `issuer`'s keys at a time; the callers of a fetch in flight wait for it. */
  private refreshKeys(issuer: string, cache: KeyCache): Promise<void> {
    cache.pending ??= (async () => {
      cache.attemptedAt = Date.now();
      try {
        cache.jwksUri ??= await this.discoverJwksUri(issuer);
        this.fetches.jwks++;
        const jwks = await fetchJson(cache.jwksUri, this.fetchOptions());
        if (!Array.isArray(jwks.keys))
          throw new AuthorizationServerUnavailableError(cache.jwksUri, 'the JWKS has no keys');
        cache.keys = createLocalJWKSet(jwks as unknown as JSONWebKeySet);
        cache.fetchedAt = Date.now();
      } finally {
        cache.pending = undefined;
      }
    })();
    return cache.pending;
  }

  private fetchOptions() {
    return {
      timeoutMs: this.options.fetchTimeoutMs ?? resourceServerDefaults.fetchTimeoutMs,
      maxBytes: this.options.maxDocumentBytes ?? resourceServerDefaults.maxDocumentBytes,
    };
  }

  /** `jwks_uri` from RFC 8414 metadata, else OpenID Connect discovery; `issuer` must match. */
  private async discoverJwksUri(issuer: string): Promise<string> {
    const url = new URL(issuer);
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
    const candidates = [
      `${url.origin}/.well-known/oauth-authorization-server${path}`,
      `${url.origin}${path}/.well-known/openid-configuration`,
    ];
    let last: unknown;
    for (const candidate of candidates) {
      let metadata: Record<string, unknown>;
      try {
        this.fetches.metadata++;
        metadata = await fetchJson(candidate, this.fetchOptions());
      } catch (error) {
        last = error;
        continue;
      }
      if (metadata.issuer !== issuer)
        throw new AuthorizationServerUnavailableError(
          candidate,
          `the metadata names another issuer (${JSON.stringify(metadata.issuer)})`,
        );
      const jwksUri = metadata.jwks_uri;
      if (typeof jwksUri !== 'string' || !URL.canParse(jwksUri))
        throw new AuthorizationServerUnavailableError(candidate, 'the metadata has no jwks_uri');
      return jwksUri;
    }
    throw last;
  }

  private async introspect(token: string, resource: string): Promise<AuthInfo> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const cached = this.introspected.get(key);
    let claims: Record<string, unknown>;
    if (cached && cached.until > now) {
      if (cached.refused !== undefined) throw new InvalidTokenError(cached.refused);
      claims = cached.claims!;
    } else {
      if (cached) this.introspected.delete(key);
      let pending = this.introspecting.get(key);
      if (!pending) {
        pending = this.askIntrospection(token).finally(() => this.introspecting.delete(key));
        this.introspecting.set(key, pending);
      }
      claims = await pending;
      const ttl = this.options.introspectionCacheMs ?? resourceServerDefaults.introspectionCacheMs;
      const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : Number.POSITIVE_INFINITY;
      const refused = claims.active === true ? undefined : 'the token is not active';
      const max =
        this.options.introspectionCacheEntries ?? resourceServerDefaults.introspectionCacheEntries;
      while (this.introspected.size >= max) {
        const oldest = this.introspected.keys().next().value;
        if (oldest === undefined) break;
        this.introspected.delete(oldest);
      }
      this.introspected.set(key, {
        until: Math.min(now + ttl, exp),
        ...(refused !== undefined ? { refused } : { claims }),
      });
      if (refused !== undefined) throw new InvalidTokenError(refused);
    }
    const tolerance =
      (this.options.clockToleranceSec ?? resourceServerDefaults.clockToleranceSec) * 1000;
    if (typeof claims.exp === 'number' && claims.exp * 1000 + tolerance <= Date.now())
      throw new InvalidTokenError('the token has expired');
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 - tolerance > Date.now())
      throw new InvalidTokenError('the token is not valid yet');
    if (claims.iss !== undefined && !this.issuers.includes(String(claims.iss)))
      throw new InvalidTokenError('the token is from an issuer this gateway does not trust');
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!this.audiences(resource).some((a) => aud.includes(a)))
      throw new InvalidTokenError('the token is for another resource (aud)');
    const type = typeof claims.token_type === 'string' ? claims.token_type.toLowerCase() : 'bearer';
    if ((type !== 'bearer' && type !== 'access_token') || claims.cnf !== undefined)
      throw new InvalidTokenError('the token is not a bearer access token');
    return authInfoOf('introspection', claims, token);
  }

  private async askIntrospection(token: string): Promise<Record<string, unknown>> {
    const { url, clientId, clientSecret } = this.options.introspection!;
    // client_secret_basic (RFC 6749 §2.3.1): both parts form-encoded first.
    const basic = Buffer.from(
      `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`,
    ).toString('base64');
    this.fetches.introspection++;
    return fetchJson(url, {
      ...this.fetchOptions(),
      init: {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      },
    });
  }
}

/** The words for a refused JWT: what failed, never the token. */
function jwtReason(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'the token is for another resource (aud)';
    if (error.claim === 'iss') return 'the token is from an issuer this gateway does not trust';
    if (error.claim === 'nbf') return 'the token is not valid yet';
    return `the token's ${error.claim} claim is not valid`;
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return 'the token is signed with a key its issuer does not publish';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed)
    return "the token's signature is not valid";
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  return 'the token could not be verified';
}

import { randomBytes } from 'node:crypto';
import { TimeoutError } from '@mcpkit/jsonrpc';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { authDefaults, checkPositive } from './defaults.js';
import { checkEndpoint, showValue } from './endpoint.js';
import { AuthError, AuthErrorCode, NeedsAuthError } from './errors.js';
import {
  type FetchLike,
  fetchBounded,
  parseObject,
  type RequestContext,
  raceAbort,
} from './fetch-bounded.js';
import type { AuthorizationHandler } from './oauth.js';
import { pkce } from './pkce.js';
import { SecretSet } from './redact.js';
import { MemoryTokenStore, type StoredTokens, type TokenStore } from './store.js';
import { type ClientAuth, tokenRequest } from './token-endpoint.js';

/** Where in enterprise-managed authorization ("XAA") a step failed. */
export type XaaStage =
  /** The identity-provider settings are missing or unusable. */
  | 'idp-settings'
  /** Signing in to the identity provider (OpenID Connect) failed. */
  | 'idp-sign-in'
  /** The identity provider refused to exchange the ID token for an ID-JAG (RFC 8693). */
  | 'token-exchange'
  /** The MCP server's authorization server refused the ID-JAG (RFC 7523 JWT bearer grant). */
  | 'jwt-bearer';

/**
 * A step of enterprise-managed authorization failed. `stage` says which, `server` for
 * which MCP server (or the identity provider's issuer for a sign-in of its own), and
 * `oauthError` the OAuth error code the refusing party sent.
 */
export class XaaError extends AuthError {
  static override readonly brand: string = '@mcpkit/auth.XaaError';
  override readonly name: string = 'XaaError';
  readonly stage: XaaStage;
  readonly server: string;
  constructor(
    message: string,
    stage: XaaStage,
    server: string,
    oauthError?: string,
    options?: { cause?: unknown },
  ) {
    super(message, oauthError, { ...options, code: AuthErrorCode.Xaa });
    this.stage = stage;
    this.server = server;
  }
}

/** The enterprise identity provider this client signs the user in to (OpenID Connect). */
export interface IdentityProviderConfig {
  /** The IdP's issuer; its `/.well-known/openid-configuration` is read. */
  issuer: string;
  /** This client's id at the IdP (the ID token's audience). */
  clientId: string;
  clientSecret?: string;
  /** Scopes of the sign-in. Default `openid`, with `offline_access` where offered. */
  scopes?: string[];
}

export interface IdentityProviderSessionOptions extends IdentityProviderConfig {
  /** Where the sign-in (the ID token, a refresh token) is kept. Default: memory. */
  store?: TokenStore;
  /** The browser sign-in; without it an expired sign-in is `NeedsAuthError`. */
  interactive?: AuthorizationHandler;
  /** For messages: which MCP server wanted the sign-in. */
  serverName?: string;
  fetch?: FetchLike;
  requestTimeoutMs?: number;
  /** Sign in again (or refresh) this long before the ID token expires. Default 60 s. */
  refreshSkewMs?: number;
  onevent?: (message: string) => void;
  secrets?: SecretSet;
}

interface OidcMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  jwks_uri?: string;
  code_challenge_methods_supported?: string[];
  scopes_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
}

/** The store key of an identity provider's sign-in (shared by every XAA server). */
export const idpStoreKey = (issuer: string) => `idp:${issuer}`;

/**
 * The user's sign-in at the enterprise identity provider: OpenID Connect authorization
 * code with PKCE S256, `state`, `nonce` and `iss` checked, the ID token's signature
 * checked against the IdP's JWKS. The ID token (and a refresh token, when the IdP gives
 * one) is kept in the store under `idp:<issuer>`, in the token field of the record; one
 * sign-in serves every server that uses this IdP.
 */
export class IdentityProviderSession {
  readonly options: IdentityProviderSessionOptions;
  readonly secrets: SecretSet;
  private readonly store: TokenStore;
  private readonly key: string;
  private readonly label: string;
  private metadataPromise: Promise<OidcMetadata> | undefined;

  constructor(options: IdentityProviderSessionOptions) {
    checkPositive('requestTimeoutMs', options.requestTimeoutMs);
    this.options = options;
    this.secrets = options.secrets ?? new SecretSet();
    this.secrets.remember(options.clientSecret);
    this.store = options.store ?? new MemoryTokenStore();
    this.key = idpStoreKey(options.issuer);
    this.label = options.serverName
      ? `server "${options.serverName}"`
      : `identity provider ${options.issuer}`;
  }

  private context(signal?: AbortSignal): RequestContext {
    return {
      fetchFn: this.options.fetch ?? ((...args) => fetch(...args)),
      label: this.label,
      signal,
      timeoutMs: this.options.requestTimeoutMs,
      secrets: this.secrets,
    };
  }

  private fail(message: string, oauthError?: string, cause?: unknown): XaaError {
    return new XaaError(
      this.secrets.redact(`${this.label}: ${message}`),
      'idp-sign-in',
      this.options.serverName ?? this.options.issuer,
      oauthError,
      cause ? { cause } : undefined,
    );
  }

  private clientAuth(): ClientAuth {
    const o = this.options;
    return o.clientSecret
      ? { method: 'client_secret_post', clientId: o.clientId, clientSecret: o.clientSecret }
      : { method: 'none', clientId: o.clientId };
  }

  /** The IdP's OpenID configuration (read once). */
  metadata(signal?: AbortSignal): Promise<OidcMetadata> {
    this.metadataPromise ??= this.readMetadata(signal).catch((error: unknown) => {
      this.metadataPromise = undefined;
      throw error;
    });
    return this.metadataPromise;
  }

  private async readMetadata(signal?: AbortSignal): Promise<OidcMetadata> {
    const issuer = checkEndpoint(this.options.issuer, {
      label: this.label,
      field: 'identityProvider.issuer',
      where: 'the identity-provider settings',
      fix: "Fix the identity provider's issuer in the settings (https, or http on this machine)",
    });
    const url = `${issuer.href.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const res = await fetchBounded(
      this.context(signal),
      url,
      { headers: { accept: 'application/json' } },
      { what: "the identity provider's OpenID configuration" },
    );
    const m = parseObject(res.text) as OidcMetadata | undefined;
    if (!res.ok || typeof m?.issuer !== 'string' || typeof m.token_endpoint !== 'string')
      throw this.fail(
        `the identity provider's OpenID configuration at ${showValue(url)} could not be read (HTTP ${res.status}, or no issuer and token_endpoint)`,
      );
    if (m.issuer !== this.options.issuer)
      throw this.fail(
        `the identity provider's OpenID configuration names issuer "${showValue(m.issuer)}", not the configured "${showValue(this.options.issuer)}"; stopped`,
      );
    const where = "the identity provider's OpenID configuration";
    for (const field of ['token_endpoint', 'authorization_endpoint', 'jwks_uri'] as const)
      if (m[field] !== undefined) checkEndpoint(m[field], { label: this.label, field, where });
    return m;
  }

  /** The stored sign-in, if any. */
  async stored(): Promise<StoredTokens | undefined> {
    const r = await this.store.get(this.key);
    const tokens = r?.issuers[this.options.issuer]?.tokens;
    this.secrets.remember(tokens?.access_token);
    this.secrets.remember(tokens?.refresh_token);
    return tokens;
  }

  private async save(idToken: string, refreshToken: string | undefined, exp: number | undefined) {
    const tokens: StoredTokens = {
      access_token: idToken,
      token_type: 'id_token',
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      ...(exp !== undefined ? { expires_at: exp * 1000 } : {}),
    };
    await this.store.set(this.key, {
      issuer: this.options.issuer,
      issuers: { [this.options.issuer]: { tokens } },
    });
  }

  /**
   * A current ID token: the stored one while it is valid, else one refreshed with the
   * stored refresh token, else a browser sign-in when `interactive` was given; without
   * any of those, `NeedsAuthError`.
   */
  async idToken(signal?: AbortSignal): Promise<string> {
    const skew = this.options.refreshSkewMs ?? 60_000;
    const current = await this.stored();
    if (current && (current.expires_at === undefined || current.expires_at - skew > Date.now()))
      return current.access_token;
    if (current?.refresh_token) {
      try {
        return await this.refresh(current.refresh_token, signal);
      } catch (error) {
        if (!AuthError.isInstance(error) || error.oauthError !== 'invalid_grant') throw error;
        this.options.onevent?.(`${this.label}: the identity provider refused the refresh`);
      }
    }
    if (this.options.interactive) {
      await this.signIn({ ...(signal ? { signal } : {}) });
      const fresh = await this.stored();
      if (fresh) return fresh.access_token;
    }
    throw new NeedsAuthError(
      `${this.label}: ${current ? 'the sign-in at the identity provider has expired' : 'the user has not signed in to the identity provider'} (${this.options.issuer}); an interactive sign-in is needed`,
      this.options.serverName ?? this.options.issuer,
    );
  }

  private async refresh(refreshToken: string, signal?: AbortSignal): Promise<string> {
    const m = await this.metadata(signal);
    const response = await tokenRequest(
      m.token_endpoint,
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      this.clientAuth(),
      this.context(signal),
      'refresh at the identity provider',
    );
    const idToken = response.id_token;
    if (typeof idToken !== 'string')
      throw this.fail('the identity provider refreshed the sign-in without an ID token');
    const claims = await this.verify(idToken, m, undefined, signal);
    await this.save(
      idToken,
      typeof response.refresh_token === 'string' ? response.refresh_token : refreshToken,
      claims.exp,
    );
    this.options.onevent?.(`${this.label}: the sign-in at the identity provider was refreshed`);
    return idToken;
  }

  /** The ID token's signature (IdP's JWKS), issuer, audience, expiry and nonce. */
  private async verify(
    idToken: string,
    m: OidcMetadata,
    nonce: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ exp?: number }> {
    if (!m.jwks_uri)
      throw this.fail("the identity provider's OpenID configuration has no jwks_uri");
    const res = await fetchBounded(
      this.context(signal),
      m.jwks_uri,
      { headers: { accept: 'application/json' } },
      { what: "the identity provider's keys" },
    );
    const jwks = parseObject(res.text);
    if (!res.ok || !Array.isArray(jwks?.keys))
      throw this.fail(`the identity provider's keys could not be read (HTTP ${res.status})`);
    try {
      const { payload } = await jwtVerify(
        idToken,
        createLocalJWKSet(jwks as unknown as JSONWebKeySet),
        {
          issuer: m.issuer,
          audience: this.options.clientId,
        },
      );
      if (nonce !== undefined && payload.nonce !== nonce)
        throw this.fail('the ID token has the wrong nonce; possible replay, stopped');
      return payload.exp !== undefined ? { exp: payload.exp } : {};
    } catch (error) {
      if (XaaError.isInstance(error)) throw error;
      throw this.fail(
        `the identity provider's ID token did not verify (${showValue((error as Error).message)})`,
        undefined,
        error,
      );
    }
  }

  /**
   * Signs the user in at the IdP now (the browser), and keeps the ID token. Bounded by
   * `timeoutMs` (default `authDefaults.loginTimeoutMs`); the handler is closed on every
   * path out.
   */
  async signIn(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    const handler = this.options.interactive;
    if (!handler)
      throw new NeedsAuthError(
        `${this.label}: signing in to the identity provider needs an interactive sign-in`,
        this.options.serverName ?? this.options.issuer,
      );
    const timeoutMs = options.timeoutMs ?? authDefaults.loginTimeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new TimeoutError(
            `${this.label}: the sign-in at the identity provider did not finish within ${timeoutMs / 1000} s`,
            timeoutMs,
          ),
        ),
      timeoutMs,
    );
    const signal = options.signal
      ? AbortSignal.any([options.signal, deadline.signal])
      : deadline.signal;
    try {
      await raceAbort(this.authorize(handler, signal), signal);
    } finally {
      clearTimeout(timer);
      await handler.close?.();
    }
  }

  private async authorize(handler: AuthorizationHandler, signal: AbortSignal): Promise<void> {
    const m = await this.metadata(signal);
    if (!m.authorization_endpoint)
      throw this.fail('the identity provider has no authorization endpoint');
    if (!(m.code_challenge_methods_supported ?? []).includes('S256'))
      throw this.fail(
        'the identity provider does not advertise PKCE S256 (code_challenge_methods_supported); refusing to sign in without it',
      );
    const scopes = new Set(['openid', ...(this.options.scopes ?? [])]);
    if ((m.scopes_supported ?? []).includes('offline_access')) scopes.add('offline_access');
    const redirectUri = await handler.redirectUri();
    const { verifier, challenge, state } = pkce();
    const nonce = randomBytes(16).toString('base64url');
    const url = new URL(m.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.options.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', [...scopes].join(' '));
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', state);
    url.searchParams.set('nonce', nonce);
    if (scopes.has('offline_access')) url.searchParams.set('prompt', 'consent');
    this.options.onevent?.(`${this.label}: signing in at ${m.authorization_endpoint}`);
    const answer = new URL(String(await handler.authorize(url, { signal })));
    const p = answer.searchParams;
    const error = p.get('error');
    if (error)
      throw this.fail(
        `the identity provider refused the sign-in: ${showValue(error)}${p.get('error_description') ? ` (${showValue(p.get('error_description'))})` : ''}`,
        error,
      );
    if (p.get('state') !== state)
      throw this.fail('the sign-in response has the wrong state; possible forgery, stopped');
    const iss = p.get('iss');
    if (iss !== null && iss !== m.issuer)
      throw this.fail(
        `the sign-in response came from issuer "${showValue(iss)}", not "${m.issuer}"; possible mix-up attack, stopped`,
      );
    if (iss === null && m.authorization_response_iss_parameter_supported === true)
      throw this.fail(
        'the identity provider promises an "iss" in its responses, and this one has none; stopped',
      );
    const code = p.get('code');
    if (!code) throw this.fail('the sign-in response has no code');
    const response = await tokenRequest(
      m.token_endpoint,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      },
      this.clientAuth(),
      this.context(signal),
      'token request at the identity provider',
    );
    const idToken = response.id_token;
    if (typeof idToken !== 'string')
      throw this.fail('the identity provider answered the sign-in without an ID token');
    const claims = await this.verify(idToken, m, nonce, signal);
    await this.save(
      idToken,
      typeof response.refresh_token === 'string' ? response.refresh_token : undefined,
      claims.exp,
    );
    this.options.onevent?.(`${this.label}: signed in to the identity provider`);
  }

  /** Forgets the sign-in. */
  async signOut(): Promise<void> {
    await this.store.delete(this.key);
  }
}

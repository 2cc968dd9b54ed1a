import type {
  HttpAuth,
  HttpAuthChallenge,
  HttpAuthRequest,
  HttpAuthResponse,
} from '@mcpkit/jsonrpc';
import { checkPositive } from './defaults.js';
import { canonicalResource, type Discovered, discover } from './discovery.js';
import { type DpopSetting, nonceOfProof } from './dpop.js';
import { DpopKeyring } from './dpop-keyring.js';
import { checkEndpoint, checkMetadataEndpoints, showValue } from './endpoint.js';
import { AuthError, NeedsAuthError } from './errors.js';
import { type FetchLike, fetchBounded, parseObject, type RequestContext } from './fetch-bounded.js';
import { SecretSet } from './redact.js';
import { type AuthRecord, MemoryTokenStore, type StoredTokens, type TokenStore } from './store.js';
import { type ClientAuth, tokenRequest, toStored } from './token-endpoint.js';
import { type BearerChallenge, parseAuthChallenges } from './www-authenticate.js';

/** Options every provider shares. */
export interface ProviderOptions {
  /** The MCP server's URL. */
  serverUrl: string | URL;
  /** Its name, for messages (`server "github": …`). */
  serverName?: string;
  /** Where tokens and registrations are kept. Default: memory only. */
  store?: TokenStore;
  /** The store key. Default: the server's canonical URL. */
  storeKey?: string;
  /**
   * Use this authorization-server metadata document instead of discovering one (a
   * server's config may pin it).
   */
  authorizationServerMetadataUrl?: string;
  /** Refresh this long before a token expires. Default 60 s. */
  refreshSkewMs?: number;
  /** Told of each step (redacted), for a host's log. */
  onevent?: (message: string) => void;
  fetch?: FetchLike;
  /** Each network step (a metadata document, registration, a token request). Default 30 s. */
  requestTimeoutMs?: number;
  /** Largest metadata, registration or token response read. Default 256 KiB. */
  maxResponseBytes?: number;
  /** How much of an error answer is read (for its OAuth error code). Default 4 KiB. */
  maxErrorBodyBytes?: number;
  /**
   * DPoP (RFC 9449) sender-constrained tokens. Unset: used where the MCP server requires
   * it (a `DPoP` challenge, `dpop_bound_access_tokens_required`), or the authorization
   * server advertises `dpop_signing_alg_values_supported` and the MCP server did not
   * challenge with `Bearer` alone. `true` or `{ alg }`: always, and a token that comes back
   * unbound is refused. `false`: never.
   */
  dpop?: DpopSetting;
}

/** `DPoP` when the token is bound to a DPoP key (the token type is case-insensitive). */
const isDpopToken = (tokens: StoredTokens) => tokens.token_type.toLowerCase() === 'dpop';
const schemeOf = (tokens: StoredTokens) => (isDpopToken(tokens) ? 'DPoP' : 'Bearer');

/**
 * What all providers share: the stored record, `headers()` with refresh before expiry,
 * and one flight at a time for whatever renews the token (so that ten concurrent 401s
 * cause one refresh, and a rotated refresh token is never lost to a race).
 */
export abstract class BaseProvider implements HttpAuth {
  protected readonly options: ProviderOptions;
  protected readonly store: TokenStore;
  protected readonly key: string;
  protected readonly fetchFn: FetchLike;
  protected readonly label: string;
  private renewing: Promise<void> | undefined;
  private cached: Promise<AuthRecord> | undefined;
  private discovered: { url: string | undefined; value: Discovered } | undefined;
  /** DPoP keys and nonces. */
  protected readonly dpop: DpopKeyring;
  /**
   * A request may be refused twice: once for a token (then renewed), once for a DPoP nonce
   * the resource wants in the proof (RFC 9449 9).
   */
  readonly maxRetries = 2;
  /**
   * The secret values this provider has handled (its tokens, client secrets): every
   * message it produces is redacted with them. Bounded; cleared on logout and close.
   */
  readonly secrets = new SecretSet();

  constructor(options: ProviderOptions) {
    checkPositive('requestTimeoutMs', options.requestTimeoutMs);
    checkPositive('maxResponseBytes', options.maxResponseBytes, 2 ** 30);
    checkPositive('maxErrorBodyBytes', options.maxErrorBodyBytes, 2 ** 30);
    this.dpop = new DpopKeyring(options.dpop, {
      record: () => this.record(),
      saveRecord: (r) => this.saveRecord(r),
      log: (m) => this.log(m),
      fail: (m) => this.fail(m),
      secrets: this.secrets,
    });
    this.options = options;
    this.store = options.store ?? new MemoryTokenStore();
    this.key = options.storeKey ?? canonicalResource(options.serverUrl);
    this.fetchFn = options.fetch ?? ((...args) => fetch(...args));
    this.label = options.serverName
      ? `server "${options.serverName}"`
      : canonicalResource(options.serverUrl);
  }

  /**
   * The `scope` parameter: the challenge's scopes, else the configured ones, else the
   * resource's `scopes_supported`; `undefined` when none.
   */
  protected scopeParam(
    bearer: BearerChallenge | undefined,
    configured: string[] | undefined,
    d: Discovered,
  ): string | undefined {
    const scopes =
      bearer?.scope?.split(' ').filter(Boolean) ??
      configured ??
      d.resourceMetadata?.scopes_supported;
    return scopes && scopes.length > 0 ? scopes.join(' ') : undefined;
  }

  protected log(message: string): void {
    this.options.onevent?.(this.secrets.redact(`${this.label}: ${message}`));
  }

  /** What a network step of this provider runs with; `signal` is the operation's. */
  protected requestContext(signal?: AbortSignal): RequestContext {
    return {
      fetchFn: this.fetchFn,
      label: this.label,
      signal,
      timeoutMs: this.options.requestTimeoutMs,
      maxResponseBytes: this.options.maxResponseBytes,
      maxErrorBodyBytes: this.options.maxErrorBodyBytes,
      secrets: this.secrets,
    };
  }

  /**
   * The record, read from the store once and then kept: `headers()` runs before every
   * request and must not read a file each time. A 401 reads the store again (another
   * process, such as a CLI's sign-in command, may have written it).
   */
  protected async record(): Promise<AuthRecord> {
    this.cached ??= this.store.get(this.key).then((r) => {
      const record = r ?? { issuers: {} };
      // What the store holds is as secret as what the server sent.
      for (const entry of Object.values(record.issuers ?? {})) {
        this.secrets.remember(entry?.tokens?.access_token);
        this.secrets.remember(entry?.tokens?.refresh_token);
        this.secrets.remember(entry?.client?.client_secret);
      }
      return record;
    });
    return this.cached;
  }

  /** Writes the record and keeps it as the cached one. */
  protected async saveRecord(record: AuthRecord): Promise<void> {
    await this.store.set(this.key, record);
    this.cached = Promise.resolve(record);
  }

  /** The tokens for the issuer in use. */
  async tokens(): Promise<StoredTokens | undefined> {
    const r = await this.record();
    return r.issuer ? r.issuers[r.issuer]?.tokens : undefined;
  }

  protected async saveTokens(issuer: string, tokens: StoredTokens | undefined): Promise<void> {
    const r = await this.record();
    r.issuer = issuer;
    const entry = r.issuers[issuer] ?? {};
    if (tokens) entry.tokens = tokens;
    else delete entry.tokens;
    r.issuers[issuer] = entry;
    await this.saveRecord(r);
  }

  /** Discovery, cached per `resource_metadata` URL. */
  protected async discovery(
    resourceMetadataUrl: string | undefined,
    signal?: AbortSignal,
  ): Promise<Discovered> {
    if (this.discovered && (!resourceMetadataUrl || this.discovered.url === resourceMetadataUrl))
      return this.discovered.value;
    const pinned = this.options.authorizationServerMetadataUrl;
    const { fetchFn, ...options } = this.requestContext(signal);
    const value = pinned
      ? await this.pinnedMetadata(pinned, signal)
      : await discover(this.options.serverUrl, resourceMetadataUrl, fetchFn, options);
    this.log(
      `authorization server ${value.metadata.issuer}${value.fallback ? ' (2025-03-26 default endpoints)' : ''}`,
    );
    this.discovered = { url: resourceMetadataUrl, value };
    return value;
  }

  private async pinnedMetadata(url: string, signal?: AbortSignal): Promise<Discovered> {
    const checked = checkEndpoint(url, {
      label: this.label,
      field: 'authorizationServerMetadataUrl',
      where: "this server's config",
      fix: "Fix the authorization-server metadata URL in the server's config (https, or http on this machine)",
    });
    const res = await fetchBounded(
      this.requestContext(signal),
      checked,
      { headers: { accept: 'application/json' } },
      {
        what: 'the configured authorization-server metadata',
        follow: { label: this.label, field: 'the location of the configured metadata' },
      },
    );
    const where = `the configured authorization-server metadata at ${showValue(checked.href)}`;
    if (!res.ok) throw this.fail(`${where} could not be read: HTTP ${res.status}`);
    const metadata = parseObject(res.text) as Discovered['metadata'] | undefined;
    if (typeof metadata?.issuer !== 'string' || typeof metadata.token_endpoint !== 'string')
      throw this.fail(`${where} lacks "issuer" or "token_endpoint"`);
    checkMetadataEndpoints(metadata, this.label, where);
    return {
      resource: canonicalResource(this.options.serverUrl),
      resourceMetadata: undefined,
      metadata,
      fallback: false,
    };
  }

  async headers(request?: HttpAuthRequest): Promise<Record<string, string>> {
    let tokens = await this.tokens();
    if (!tokens) return {};
    const skew = this.options.refreshSkewMs ?? 60_000;
    if (tokens.expires_at !== undefined && tokens.expires_at - skew <= Date.now()) {
      try {
        await this.renew(() => this.refreshOrRenew(tokens!, undefined));
      } catch (error) {
        this.log(`could not renew the token before it expired: ${(error as Error).message}`);
      }
      tokens = await this.tokens();
      if (!tokens || (tokens.expires_at !== undefined && tokens.expires_at <= Date.now()))
        return {};
    }
    if (!isDpopToken(tokens)) return { authorization: `Bearer ${tokens.access_token}` };
    if (!request)
      throw this.fail(
        'the token is DPoP-bound, and the transport did not say which method and URL the request has, which the proof signs; use a transport of @mcpkit that passes them to headers()',
      );
    const issuer = (await this.record()).issuer;
    const key = issuer ? await this.dpop.storedKey(issuer) : undefined;
    if (!key) {
      // Without its key a bound token is useless: let the server's 401 get a new one.
      this.log('the DPoP key of the stored token is missing or damaged; a new token is needed');
      return {};
    }
    const proof = await key.proof({
      htm: request.method,
      htu: request.url,
      accessToken: tokens.access_token,
      nonce: this.dpop.nonces.get(request.url),
    });
    return { authorization: `DPoP ${tokens.access_token}`, dpop: proof };
  }

  /**
   * Keeps the `DPoP-Nonce` any answer of the resource server carries, a 200 included (RFC
   * 9449 9): the server may rotate it at will, and the next proof must carry the new one.
   */
  onResponse(response: HttpAuthResponse): void {
    this.dpop.nonces.set(response.url, response.dpopNonce);
  }

  async onUnauthorized(challenge: HttpAuthChallenge): Promise<boolean> {
    const challenges = parseAuthChallenges(challenge.wwwAuthenticate);
    const bearer = challenges.bearer ?? challenges.dpop;
    this.dpop.noteChallenge(challenges);
    const sentProof = challenge.dpop;
    if (challenges.dpop?.error === 'use_dpop_nonce' && sentProof !== undefined) {
      // RFC 9449 9: the token is fine; the proof lacks the resource's nonce. Retried with a
      // new one only: a server that refuses the nonce it gave cannot be satisfied.
      const nonce = this.dpop.nonces.set(challenge.url, challenge.dpopNonce);
      if (nonce === undefined) {
        this.log('the server asked for a DPoP nonce and gave no usable one');
        return false;
      }
      return nonce !== nonceOfProof(sentProof);
    }
    this.dpop.nonces.set(challenge.url, challenge.dpopNonce);
    // One renewal per request: a request refused again after it is refused for good.
    if ((challenge.retries ?? 0) > 0) return false;
    if (challenge.status === 403) return this.onForbidden(bearer);
    // Someone renewed the token since this request went out: just retry.
    if (this.renewing) {
      await this.renewing;
      return true;
    }
    this.cached = undefined;
    const current = await this.tokens();
    if (current && challenge.authorization !== undefined) {
      if (challenge.authorization !== `${schemeOf(current)} ${current.access_token}`) return true;
    }
    // What the server says now counts: its authorization server may have changed.
    this.discovered = undefined;
    await this.renew(() => this.refreshOrRenew(current, bearer));
    return true;
  }

  /**
   * A grant at `d`'s token endpoint, with a DPoP proof where DPoP is used there; returns
   * the tokens to store. A token that should be bound and is not is refused when the host
   * asked for DPoP; a bound token this client has no key for is refused always.
   */
  protected async grant(
    d: Discovered,
    params: Record<string, string | undefined>,
    auth: ClientAuth,
    what: string,
    signal: AbortSignal | undefined,
    previous?: StoredTokens,
  ): Promise<StoredTokens> {
    const key = await this.dpop.keyFor(d);
    const response = await tokenRequest(
      d.metadata.token_endpoint,
      params,
      auth,
      this.requestContext(signal),
      what,
      key ? { key, nonces: this.dpop.nonces } : undefined,
    );
    const tokenType = this.dpop.tokenType(response, key, what);
    return { ...toStored(response, previous), token_type: tokenType };
  }

  /** 403: only `insufficient_scope` can be fixed (by a new authorization with more scopes). */
  protected async onForbidden(_bearer: BearerChallenge | undefined): Promise<boolean> {
    return false;
  }

  /** Runs `work` unless a renewal is already in flight, in which case it waits for that. */
  protected renew(work: () => Promise<void>): Promise<void> {
    this.renewing ??= work().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** A refresh when possible, else whatever this provider does to get a token. */
  protected abstract refreshOrRenew(
    current: StoredTokens | undefined,
    bearer: BearerChallenge | undefined,
    signal?: AbortSignal,
  ): Promise<void>;

  /**
   * Drops what this provider holds in memory: the next request reads the store again
   * (after another process, such as a CLI's sign-in command, wrote it).
   */
  reload(): void {
    this.cached = undefined;
    this.discovered = undefined;
  }

  /** Forgets this server's tokens and registrations, and the secrets held in memory. */
  async logout(): Promise<void> {
    await this.store.delete(this.key);
    this.cached = undefined;
    this.discovered = undefined;
    this.dpop.clear();
    this.secrets.clear();
  }

  /**
   * Drops everything this provider holds in memory (tokens read from the store, the
   * secrets it remembered for redaction). The store keeps the tokens; a provider used
   * after `close()` reads them again.
   */
  async close(): Promise<void> {
    this.cached = undefined;
    this.discovered = undefined;
    this.dpop.clear();
    this.secrets.clear();
  }

  protected needsAuth(reason: string): NeedsAuthError {
    return new NeedsAuthError(
      `${this.label}: ${reason}; an interactive sign-in is needed to authorize`,
      this.options.serverName ?? this.key,
    );
  }

  protected fail(message: string, oauthError?: string, cause?: unknown): AuthError {
    return new AuthError(
      this.secrets.redact(`${this.label}: ${message}`),
      oauthError,
      cause ? { cause } : undefined,
    );
  }
}

import { TimeoutError } from '@mcpkit/jsonrpc';
import { authDefaults, checkPositive } from './defaults.js';
import type { Discovered } from './discovery.js';
import { checkEndpoint, showValue } from './endpoint.js';
import { AuthError } from './errors.js';
import { fetchBounded, parseObject, raceAbort } from './fetch-bounded.js';
import { pkce } from './pkce.js';
import { BaseProvider, type ProviderOptions } from './provider.js';
import type { StoredClient, StoredTokens } from './store.js';
import { type ClientAuth, chooseAuthMethod } from './token-endpoint.js';
import { type BearerChallenge, parseAuthChallenges } from './www-authenticate.js';

/**
 * Sends the user to the authorization server and brings back where it redirected to.
 * `LoopbackAuthorization` opens a browser and listens on 127.0.0.1.
 */
export interface AuthorizationHandler {
  /** The redirect URI to register and send. */
  redirectUri(): string | Promise<string>;
  /**
   * Has the user visit `url`; resolves with the full URL the server redirected back to.
   * Should stop waiting (rejecting with `signal.reason`) when `signal` aborts.
   */
  authorize(url: URL, options?: AuthorizeOptions): Promise<URL | string>;
  /**
   * Releases what `redirectUri()` set up (a listener). Called after every authorization
   * attempt, failed or not, including when a step before `authorize` failed.
   */
  close?(): void | Promise<void>;
}

/** What `AuthorizationHandler.authorize` is given besides the URL. */
export interface AuthorizeOptions {
  /** The sign-in's deadline or the caller's abort. */
  signal?: AbortSignal | undefined;
  /**
   * How the user is given the URL for this sign-in, instead of the handler's own way (a
   * host that serves a remote user passes the URL on rather than open a local browser).
   * A handler should honour it; `LoopbackAuthorization` does.
   */
  open?: ((url: string) => void | Promise<void>) | undefined;
}

/** Options of `OAuthProvider.login()`. */
export interface LoginOptions {
  /** Stops the sign-in: `login()` rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * The whole sign-in: probe, discovery, registration, the browser, the token request.
   * Default `loginTimeoutMs` of the provider, else `authDefaults.loginTimeoutMs` (6 min).
   */
  timeoutMs?: number;
}

/** A client registered out of band (from the server's config). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** Default: chosen from what the server supports. */
  tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post';
}

export interface OAuthProviderOptions extends ProviderOptions {
  /** Interactive sign-in. Without it a 401 that a refresh cannot fix is `NeedsAuthError`. */
  interactive?: AuthorizationHandler;
  /** Credentials from config: no registration is made. */
  client?: PreRegisteredClient;
  /**
   * The URL of this client's metadata document: used as its `client_id` where the
   * authorization server supports client ID metadata documents.
   */
  clientMetadataUrl?: string;
  /** What dynamic registration sends. */
  clientMetadata?: {
    client_name?: string;
    client_uri?: string;
    logo_uri?: string;
    software_id?: string;
    software_version?: string;
  };
  /** Scopes to ask for when the server's challenge names none. */
  scopes?: string[];
  /** Ask for `offline_access` (a refresh token) where the server offers it. Default true. */
  offlineAccess?: boolean;
  /** Step-up authorizations (403 `insufficient_scope`) before giving up. Default 3. */
  maxStepUps?: number;
  /** The default deadline of `login()`. Default `authDefaults.loginTimeoutMs` (6 min). */
  loginTimeoutMs?: number;
}

/**
 * Whether a registered redirect URI covers this one. RFC 8252 7.3: a loopback redirect may
 * use any port (a free one each sign-in), so the port does not count there.
 */
function sameRedirect(registered: string, wanted: string): boolean {
  if (registered === wanted) return true;
  if (!isLoopback(registered) || !isLoopback(wanted)) return false;
  const a = new URL(registered);
  const b = new URL(wanted);
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}

const isLoopback = (uri: string) => {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  } catch {
    return false;
  }
};

/**
 * OAuth 2.1 authorization code with PKCE for an MCP server, as the MCP authorization
 * specification asks: discovery (RFC 9728, RFC 8414, OpenID), the client identified by
 * pre-registration, a client ID metadata document or dynamic registration, `state` and
 * `iss` checked, the `resource` parameter on every request, refresh, step-up.
 * Plug it into a transport as `auth`.
 */
export class OAuthProvider extends BaseProvider {
  declare protected readonly options: OAuthProviderOptions;
  private stepUps = 0;

  constructor(options: OAuthProviderOptions) {
    super(options);
    checkPositive('loginTimeoutMs', options.loginTimeoutMs);
    this.secrets.remember(options.client?.clientSecret);
    if (options.clientMetadataUrl !== undefined)
      checkEndpoint(options.clientMetadataUrl, {
        label: this.label,
        field: 'clientMetadataUrl',
        where: "this client's settings",
        fix: 'Give the client ID metadata document as an https URL',
      });
  }

  get interactive(): boolean {
    return this.options.interactive !== undefined;
  }

  /**
   * Signs in now (a host's sign-in command): asks the server for its challenge, then runs
   * the authorization flow. Needs `interactive`. Ends by `timeoutMs` (`TimeoutError`) or
   * when `signal` aborts (its reason), with the redirect listener closed either way.
   */
  async login(options: LoginOptions = {}): Promise<void> {
    const timeoutMs =
      options.timeoutMs ?? this.options.loginTimeoutMs ?? authDefaults.loginTimeoutMs;
    checkPositive('timeoutMs', timeoutMs);
    options.signal?.throwIfAborted();
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new TimeoutError(
            `${this.label}: the sign-in did not finish within ${timeoutMs / 1000} s (it was not completed in the browser)`,
            timeoutMs,
          ),
        ),
      timeoutMs,
    );
    const signal = options.signal
      ? AbortSignal.any([options.signal, deadline.signal])
      : deadline.signal;
    try {
      const challenge = await this.probe(signal);
      await raceAbort(
        this.renew(() => this.authorizeFlow(challenge, [], signal)),
        signal,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Releases the interactive handler's listener and what the provider holds in memory. */
  override async close(): Promise<void> {
    await this.options.interactive?.close?.();
    await super.close();
  }

  /** An unauthenticated request, for the `WWW-Authenticate` challenge it earns. */
  private async probe(signal: AbortSignal): Promise<BearerChallenge | undefined> {
    const res = await fetchBounded(
      this.requestContext(signal),
      String(this.options.serverUrl),
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'mcpkit-login', version: '0.1.0' },
          },
        }),
      },
      { what: 'the sign-in probe', discardBody: true },
    );
    if (res.status !== 401 && res.status !== 403) return undefined;
    const challenges = parseAuthChallenges(res.headers.get('www-authenticate') ?? undefined);
    this.dpop.noteChallenge(challenges);
    return challenges.bearer ?? challenges.dpop;
  }

  protected override async onForbidden(bearer: BearerChallenge | undefined): Promise<boolean> {
    if (bearer?.error !== 'insufficient_scope') return false;
    const max = this.options.maxStepUps ?? 3;
    if (this.stepUps >= max) {
      throw this.fail(
        `the server still wants more scopes (${bearer.scope ?? 'unnamed'}) after ${max} step-up authorizations; giving up`,
      );
    }
    this.stepUps++;
    const had = (await this.tokens())?.scope?.split(' ').filter(Boolean) ?? [];
    await this.renew(() => this.authorizeFlow(bearer, had));
    return true;
  }

  protected async refreshOrRenew(
    current: StoredTokens | undefined,
    bearer: BearerChallenge | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    if (!current?.refresh_token && !this.options.interactive)
      throw this.needsAuth('the server needs authorization');
    // Tokens are good only with the authorization server that issued them.
    if (
      current?.refresh_token &&
      (await this.record()).issuer ===
        (await this.discovery(bearer?.resourceMetadata, signal)).metadata.issuer
    ) {
      try {
        await this.refresh(current, bearer, signal);
        return;
      } catch (error) {
        // invalid_grant: the refresh token is spent or revoked. invalid_client: the server
        // forgot our registration (dropped in refresh()). Either way: authorize anew.
        const code = AuthError.isInstance(error) ? error.oauthError : undefined;
        if (code !== 'invalid_grant' && code !== 'invalid_client') throw error;
        this.log(`the refresh was refused (${code}); authorizing anew`);
        const r = await this.record();
        if (r.issuer) await this.saveTokens(r.issuer, undefined);
      }
    }
    await this.authorizeFlow(bearer, [], signal);
  }

  private async refresh(
    current: StoredTokens,
    bearer: BearerChallenge | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const d = await this.discovery(bearer?.resourceMetadata, signal);
    const client = await this.client(d, undefined, signal);
    const tokens = await this.grant(
      d,
      {
        grant_type: 'refresh_token',
        refresh_token: current.refresh_token,
        resource: d.resource,
      },
      this.clientAuth(client, d),
      'token refresh',
      signal,
      current,
    ).catch(async (error: unknown) => {
      if (AuthError.isInstance(error) && error.oauthError === 'invalid_client')
        await this.forgetClient(d.metadata.issuer);
      throw error;
    });
    // Saved before anyone else can read the old one: a rotated refresh token is not lost.
    await this.saveTokens(d.metadata.issuer, tokens);
    this.log('token refreshed');
  }

  /**
   * The full authorization code flow; needs the interactive handler. Whatever fails
   * (discovery, registration, the browser, the callback, the token request, the
   * deadline), the handler's listener is closed before this returns.
   */
  private async authorizeFlow(
    bearer: BearerChallenge | undefined,
    extraScopes: string[],
    signal?: AbortSignal,
  ): Promise<void> {
    const handler = this.options.interactive;
    if (!handler) throw this.needsAuth('the server needs authorization');
    try {
      await this.authorizeWith(handler, bearer, extraScopes, signal);
    } finally {
      await handler.close?.();
    }
  }

  private async authorizeWith(
    handler: AuthorizationHandler,
    bearer: BearerChallenge | undefined,
    extraScopes: string[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const d = await this.discovery(bearer?.resourceMetadata, signal);
    const m = d.metadata;
    if (!m.authorization_endpoint)
      throw this.fail(`the authorization server ${m.issuer} has no authorization endpoint`);
    if (!d.fallback && !(m.code_challenge_methods_supported ?? []).includes('S256')) {
      throw this.fail(
        `the authorization server ${m.issuer} does not advertise PKCE S256 (code_challenge_methods_supported); refusing to authorize without it`,
      );
    }

    const scopes = new Set<string>(extraScopes);
    const wanted = bearer?.scope
      ? bearer.scope.split(' ')
      : (this.options.scopes ?? d.resourceMetadata?.scopes_supported ?? []);
    for (const s of wanted) if (s) scopes.add(s);
    if (
      (this.options.offlineAccess ?? true) &&
      (m.scopes_supported ?? []).includes('offline_access')
    )
      scopes.add('offline_access');
    else scopes.delete('offline_access');

    for (let attempt = 0; ; attempt++) {
      // Asked again each attempt: a loopback handler listens anew (maybe on another port,
      // which RFC 8252 lets a registration cover).
      const redirectUri = await handler.redirectUri();
      const client = await this.client(d, redirectUri, signal);
      const { verifier, challenge, state } = pkce();
      const url = new URL(m.authorization_endpoint);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', client.client_id);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('code_challenge', challenge);
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.set('state', state);
      if (scopes.size > 0) url.searchParams.set('scope', [...scopes].join(' '));
      url.searchParams.set('resource', d.resource);
      this.log(`authorizing at ${m.authorization_endpoint}`);
      const answer = await raceAbort(Promise.resolve(handler.authorize(url, { signal })), signal);
      const code = this.checkCallback(new URL(String(answer)), state, m);
      try {
        const tokens = await this.grant(
          d,
          {
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            code_verifier: verifier,
            resource: d.resource,
          },
          this.clientAuth(client, d),
          'token request',
          signal,
        );
        await this.saveTokens(m.issuer, tokens);
        this.log('authorized');
        return;
      } catch (error) {
        // A registration the server no longer knows: register again and start over, once.
        if (
          attempt === 0 &&
          AuthError.isInstance(error) &&
          error.oauthError === 'invalid_client' &&
          client.kind === 'dynamic'
        ) {
          await this.forgetClient(m.issuer);
          continue;
        }
        throw error;
      }
    }
  }

  /** Checks the redirect: error, `state`, `iss` (RFC 9207); returns the code. */
  private checkCallback(callback: URL, state: string, m: Discovered['metadata']): string {
    const p = callback.searchParams;
    const error = p.get('error');
    if (error) {
      const description = p.get('error_description');
      throw this.fail(
        `authorization was refused: ${showValue(error)}${description ? ` (${showValue(description)})` : ''}`,
        error,
      );
    }
    if (p.get('state') !== state)
      throw this.fail('the authorization response has the wrong state; possible forgery, stopped');
    const iss = p.get('iss');
    if (iss !== null && iss !== m.issuer)
      throw this.fail(
        `the authorization response came from issuer "${showValue(iss)}", not "${m.issuer}"; possible mix-up attack, stopped`,
      );
    if (iss === null && m.authorization_response_iss_parameter_supported === true)
      throw this.fail(
        'the authorization server promises an "iss" in its responses, and this one has none; stopped',
      );
    const code = p.get('code');
    if (!code) throw this.fail('the authorization response has no code');
    return code;
  }

  private async forgetClient(issuer: string): Promise<void> {
    const r = await this.record();
    if (r.issuers[issuer]) delete r.issuers[issuer].client;
    await this.saveRecord(r);
    this.log('the client registration was refused; it will be made again');
  }

  /**
   * This client's identity at the issuer: pre-registered, else a stored registration,
   * else a client ID metadata document, else a new dynamic registration.
   */
  private async client(
    d: Discovered,
    redirectUri: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<StoredClient> {
    const m = d.metadata;
    const pre = this.options.client;
    if (pre) {
      return {
        kind: 'pre-registered',
        client_id: pre.clientId,
        ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}),
        token_endpoint_auth_method:
          pre.tokenEndpointAuthMethod ??
          chooseAuthMethod(m.token_endpoint_auth_methods_supported, pre.clientSecret !== undefined),
      };
    }
    const r = await this.record();
    const stored = r.issuers[m.issuer]?.client;
    if (
      stored &&
      (stored.kind !== 'dynamic' ||
        redirectUri === undefined ||
        stored.redirect_uris?.some((uri) => sameRedirect(uri, redirectUri)))
    )
      return stored;
    if (this.options.clientMetadataUrl && m.client_id_metadata_document_supported === true) {
      return this.keepClient(m.issuer, {
        kind: 'metadata-document',
        client_id: this.options.clientMetadataUrl,
        token_endpoint_auth_method: 'none',
      });
    }
    if (!m.registration_endpoint) {
      throw this.fail(
        `the authorization server ${m.issuer} offers no dynamic registration${this.options.clientMetadataUrl ? '' : ' and this client has no metadata document URL'}; configure a client_id for this server`,
      );
    }
    if (!redirectUri) throw this.needsAuth('the client is not registered yet');
    return this.keepClient(m.issuer, await this.register(d, redirectUri, signal));
  }

  private async keepClient(issuer: string, client: StoredClient): Promise<StoredClient> {
    const r = await this.record();
    r.issuer = issuer;
    const entry = r.issuers[issuer] ?? {};
    entry.client = client;
    r.issuers[issuer] = entry;
    await this.saveRecord(r);
    return client;
  }

  /** RFC 7591 dynamic client registration. */
  private async register(
    d: Discovered,
    redirectUri: string,
    signal: AbortSignal | undefined,
  ): Promise<StoredClient> {
    const m = d.metadata;
    const supported = m.token_endpoint_auth_methods_supported;
    const method =
      !supported || supported.includes('none')
        ? 'none'
        : supported.includes('client_secret_basic')
          ? 'client_secret_basic'
          : 'client_secret_post';
    const body = {
      client_name: 'mcpkit',
      ...this.options.clientMetadata,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
      application_type:
        isLoopback(redirectUri) || !redirectUri.startsWith('http') ? 'native' : 'web',
    };
    // Checked with the rest of the metadata in discovery; the endpoint is used only here.
    const endpoint = m.registration_endpoint!;
    const res = await fetchBounded(
      this.requestContext(signal),
      endpoint,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      },
      { what: 'client registration' },
    );
    const json = parseObject(res.text);
    if (!res.ok || typeof json?.client_id !== 'string') {
      const error = typeof json?.error === 'string' ? json.error : undefined;
      const description =
        typeof json?.error_description === 'string' ? `: ${showValue(json.error_description)}` : '';
      throw this.fail(
        `client registration at ${showValue(endpoint)} answered ${res.status}${error ? ` ${showValue(error)}` : ''}${description}${res.ok ? ' without a client_id' : ''}; the authorization server refused to register this client: try again later, or configure a client_id for this server`,
        error,
      );
    }
    const secret = typeof json.client_secret === 'string' ? json.client_secret : undefined;
    this.secrets.remember(secret);
    this.log(`registered as client ${showValue(json.client_id)}`);
    return {
      kind: 'dynamic',
      client_id: json.client_id,
      ...(secret ? { client_secret: secret } : {}),
      token_endpoint_auth_method:
        typeof json.token_endpoint_auth_method === 'string'
          ? json.token_endpoint_auth_method
          : secret
            ? chooseAuthMethod(supported, true)
            : 'none',
      redirect_uris: [redirectUri],
    };
  }

  private clientAuth(client: StoredClient, d: Discovered): ClientAuth {
    const method =
      client.token_endpoint_auth_method ??
      chooseAuthMethod(d.metadata.token_endpoint_auth_methods_supported, !!client.client_secret);
    if (
      (method === 'client_secret_basic' || method === 'client_secret_post') &&
      client.client_secret
    )
      return { method, clientId: client.client_id, clientSecret: client.client_secret };
    return { method: 'none', clientId: client.client_id };
  }
}

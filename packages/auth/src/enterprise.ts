import { checkEndpoint } from './endpoint.js';
import { AuthError, NeedsAuthError } from './errors.js';
import { XaaError } from './idp-session.js';
import { BaseProvider, type ProviderOptions } from './provider.js';
import type { StoredTokens } from './store.js';
import { type ClientAuth, chooseAuthMethod, tokenRequest } from './token-endpoint.js';
import type { BearerChallenge } from './www-authenticate.js';

/** The enterprise identity provider, configured once and shared by every server. */
export interface IdentityProviderSettings {
  /** The IdP's token endpoint (RFC 8693 token exchange), or how to find it. */
  tokenEndpoint: string | (() => string | Promise<string>);
  /** This client's id and secret at the IdP. */
  clientId: string;
  clientSecret?: string;
  /** The user's identity assertion from single sign-on (an OpenID Connect ID token). */
  idToken: string | ((signal?: AbortSignal) => string | Promise<string>);
  /** Signs the user in at the IdP (a browser); run by `login()`. */
  signIn?: (options: { signal?: AbortSignal; timeoutMs?: number }) => Promise<void>;
  /** Forgets the IdP sign-in; run by `logout()`. */
  signOut?: () => Promise<void>;
}

export interface EnterpriseAuthOptions extends ProviderOptions {
  idp: IdentityProviderSettings;
  /** This client at the MCP server's authorization server. */
  clientId: string;
  clientSecret?: string;
  scopes?: string[];
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Enterprise-managed authorization ("XAA", the MCP extension): the user's ID token from
 * the enterprise IdP is exchanged there for an identity assertion grant (ID-JAG, RFC
 * 8693), which the MCP server's authorization server turns into an access token (RFC
 * 7523 JWT bearer). One IdP sign-in serves every server; an expired access token is
 * replaced by doing the exchange again. Failures are `XaaError` with the `stage` that
 * failed (`token-exchange` at the IdP, `jwt-bearer` at the authorization server).
 */
export class EnterpriseAuthProvider extends BaseProvider {
  declare protected readonly options: EnterpriseAuthOptions;

  constructor(options: EnterpriseAuthOptions) {
    super(options);
    this.secrets.remember(options.clientSecret);
    this.secrets.remember(options.idp.clientSecret);
  }

  protected async refreshOrRenew(
    _current: StoredTokens | undefined,
    bearer: BearerChallenge | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const d = await this.discovery(bearer?.resourceMetadata, signal);
    const m = d.metadata;
    const o = this.options;
    const idToken =
      typeof o.idp.idToken === 'function' ? await o.idp.idToken(signal) : o.idp.idToken;
    this.secrets.remember(idToken);
    const scope = this.scopeParam(bearer, o.scopes, d);
    const idpAuth: ClientAuth = o.idp.clientSecret
      ? { method: 'client_secret_post', clientId: o.idp.clientId, clientSecret: o.idp.clientSecret }
      : { method: 'none', clientId: o.idp.clientId };
    const tokenEndpoint =
      typeof o.idp.tokenEndpoint === 'function' ? await o.idp.tokenEndpoint() : o.idp.tokenEndpoint;
    const idpEndpoint = checkEndpoint(tokenEndpoint, {
      label: this.label,
      field: 'idp.tokenEndpoint',
      where: 'the identity-provider settings',
      fix: "Fix the identity provider's token endpoint in the settings (https, or http on this machine)",
    });
    const exchanged = await tokenRequest(
      idpEndpoint.href,
      {
        grant_type: TOKEN_EXCHANGE,
        requested_token_type: ID_JAG,
        audience: m.issuer,
        resource: d.resource,
        scope,
        subject_token: idToken,
        subject_token_type: ID_TOKEN,
      },
      idpAuth,
      this.requestContext(signal),
      'token exchange at the identity provider',
    ).catch((error: unknown) => {
      throw this.stageError('token-exchange', error);
    });
    if (exchanged.issued_token_type !== undefined && exchanged.issued_token_type !== ID_JAG) {
      throw this.stageError(
        'token-exchange',
        this.fail(
          `the identity provider issued a "${exchanged.issued_token_type}", not an identity assertion grant`,
        ),
      );
    }
    const auth: ClientAuth = o.clientSecret
      ? {
          method: chooseAuthMethod(m.token_endpoint_auth_methods_supported, true) as
            | 'client_secret_basic'
            | 'client_secret_post',
          clientId: o.clientId,
          clientSecret: o.clientSecret,
        }
      : { method: 'none', clientId: o.clientId };
    const tokens = await this.grant(
      d,
      { grant_type: JWT_BEARER, assertion: exchanged.access_token, resource: d.resource, scope },
      auth,
      'JWT bearer grant',
      signal,
    ).catch((error: unknown) => {
      throw this.stageError('jwt-bearer', error);
    });
    await this.saveTokens(m.issuer, tokens);
    this.log('token issued (enterprise-managed authorization)');
  }

  /** An `AuthError` of one step as an `XaaError` of that stage (same message and code). */
  private stageError(stage: 'token-exchange' | 'jwt-bearer', error: unknown): unknown {
    if (!AuthError.isInstance(error) || XaaError.isInstance(error)) return error;
    return new XaaError(
      error.message,
      stage,
      this.options.serverName ?? this.key,
      error.oauthError,
      { cause: error },
    );
  }

  /**
   * Signs in now (a host's sign-in command): the IdP sign-in (`idp.signIn`, a browser),
   * then the exchange and the grant. Bounded by `timeoutMs`; a signal ends it.
   */
  async login(options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    options.signal?.throwIfAborted();
    const signIn = this.options.idp.signIn;
    if (!signIn)
      throw new NeedsAuthError(
        `${this.label}: no identity-provider sign-in is configured`,
        this.options.serverName ?? this.key,
      );
    await signIn(options);
    this.reload();
    await this.renew(() => this.refreshOrRenew(undefined, undefined, options.signal));
  }

  /** Forgets this server's tokens and the IdP sign-in (`idp.signOut`). */
  override async logout(): Promise<void> {
    await super.logout();
    await this.options.idp.signOut?.();
  }
}

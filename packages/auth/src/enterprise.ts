import { checkEndpoint } from './endpoint.js';
import { BaseProvider, type ProviderOptions } from './provider.js';
import type { StoredTokens } from './store.js';
import { type ClientAuth, chooseAuthMethod, tokenRequest } from './token-endpoint.js';
import type { BearerChallenge } from './www-authenticate.js';

/** The enterprise identity provider, configured once and shared by every server. */
export interface IdentityProviderSettings {
  /** The IdP's token endpoint (RFC 8693 token exchange). */
  tokenEndpoint: string;
  /** This client's id and secret at the IdP. */
  clientId: string;
  clientSecret?: string;
  /** The user's identity assertion from single sign-on (an OpenID Connect ID token). */
  idToken: string | (() => string | Promise<string>);
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
 * 7523 JWT bearer). No browser; one IdP configuration serves every server.
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
    const idToken = typeof o.idp.idToken === 'function' ? await o.idp.idToken() : o.idp.idToken;
    this.secrets.remember(idToken);
    const scope = this.scopeParam(bearer, o.scopes, d);
    const idpAuth: ClientAuth = o.idp.clientSecret
      ? { method: 'client_secret_post', clientId: o.idp.clientId, clientSecret: o.idp.clientSecret }
      : { method: 'none', clientId: o.idp.clientId };
    const idpEndpoint = checkEndpoint(o.idp.tokenEndpoint, {
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
    );
    if (exchanged.issued_token_type !== undefined && exchanged.issued_token_type !== ID_JAG) {
      throw this.fail(
        `the identity provider issued a "${exchanged.issued_token_type}", not an identity assertion grant`,
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
    );
    await this.saveTokens(m.issuer, tokens);
    this.log('token issued (enterprise-managed authorization)');
  }
}

import { randomUUID } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { BaseProvider, type ProviderOptions } from './provider.js';
import type { StoredTokens } from './store.js';
import { type ClientAuth, chooseAuthMethod } from './token-endpoint.js';
import type { BearerChallenge } from './www-authenticate.js';

export interface ClientCredentialsOptions extends ProviderOptions {
  clientId: string;
  /** `client_secret_basic` (or `_post` where only that is offered). */
  clientSecret?: string;
  /** `private_key_jwt`: a PKCS#8 PEM private key and its algorithm (e.g. `ES256`, `RS256`). */
  privateKey?: { pem: string; algorithm: string; keyId?: string };
  scopes?: string[];
}

/**
 * Machine-to-machine access (the MCP client-credentials extension): the client
 * authenticates as itself with a secret or a signed JWT, no user involved.
 */
export class ClientCredentialsProvider extends BaseProvider {
  declare protected readonly options: ClientCredentialsOptions;

  constructor(options: ClientCredentialsOptions) {
    super(options);
    if (!options.clientSecret && !options.privateKey)
      throw new Error('client credentials need a clientSecret or a privateKey');
    this.secrets.remember(options.clientSecret);
  }

  protected async refreshOrRenew(
    _current: StoredTokens | undefined,
    bearer: BearerChallenge | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const d = await this.discovery(bearer?.resourceMetadata, signal);
    const m = d.metadata;
    const tokens = await this.grant(
      d,
      {
        grant_type: 'client_credentials',
        resource: d.resource,
        scope: this.scopeParam(bearer, this.options.scopes, d),
      },
      this.clientAuth(m.issuer, m.token_endpoint_auth_methods_supported),
      'client credentials',
      signal,
    );
    await this.saveTokens(m.issuer, tokens);
    this.log('token issued (client credentials)');
  }

  private clientAuth(issuer: string, supported: string[] | undefined): ClientAuth {
    const o = this.options;
    if (o.privateKey) {
      const key = o.privateKey;
      return {
        method: 'private_key_jwt',
        clientId: o.clientId,
        assertion: async () => {
          const signingKey = await importPKCS8(key.pem, key.algorithm);
          const now = Math.floor(Date.now() / 1000);
          return (
            new SignJWT({})
              .setProtectedHeader({ alg: key.algorithm, ...(key.keyId ? { kid: key.keyId } : {}) })
              .setIssuer(o.clientId)
              .setSubject(o.clientId)
              // The authorization server's issuer identifier (RFC 7523 3, as RFC 7523bis settles it).
              .setAudience(issuer)
              .setIssuedAt(now)
              .setExpirationTime(now + 300)
              .setJti(randomUUID())
              .sign(signingKey)
          );
        },
      };
    }
    const method = chooseAuthMethod(supported, true) as
      | 'client_secret_basic'
      | 'client_secret_post';
    return { method, clientId: o.clientId, clientSecret: o.clientSecret! };
  }
}

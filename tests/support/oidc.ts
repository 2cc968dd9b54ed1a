import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider, certified) on 127.0.0.1 for tests: dynamic
 * registration, resource indicators (one resource scope, `mcp:tools`), PKCE required,
 * refresh tokens rotated, and its development login and consent pages (any login).
 * `dPoP`: its DPoP feature on (RFC 9449), with nonces required when asked.
 */
export async function startOidcProvider(
  options: {
    dPoP?: { requireNonce?: boolean };
    /** The scopes the resource accepts (space-separated); `mcp:tools` by default. */
    resourceScope?: string;
    /** `jwt`: access tokens are JWTs signed with the provider's keys (RFC 9068); opaque by default. */
    accessTokenFormat?: 'opaque' | 'jwt' | ((resource: string) => 'opaque' | 'jwt');
    /** RFC 7662 introspection on, for this confidential client (a resource server). */
    introspectionClient?: { clientId: string; clientSecret: string };
    /** Clients registered beforehand (oidc-provider's client metadata). */
    clients?: Record<string, unknown>[];
  } = {},
) {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      ...(options.clients ?? []),
      ...(options.introspectionClient
        ? [
            {
              client_id: options.introspectionClient.clientId,
              client_secret: options.introspectionClient.clientSecret,
              redirect_uris: [],
              response_types: [],
              grant_types: [],
            },
          ]
        : []),
    ],
    features: {
      registration: { enabled: true },
      ...(options.introspectionClient ? { introspection: { enabled: true } } : {}),
      devInteractions: { enabled: true },
      revocation: { enabled: true },
      ...(options.dPoP
        ? {
            dPoP: {
              enabled: true,
              nonceSecret: Buffer.alloc(32, 7),
              requireNonce: () => options.dPoP?.requireNonce === true,
            },
          }
        : {}),
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          const format =
            typeof options.accessTokenFormat === 'function'
              ? options.accessTokenFormat(resource)
              : (options.accessTokenFormat ?? 'opaque');
          return {
            scope: options.resourceScope ?? 'mcp:tools',
            audience: resource,
            accessTokenFormat: format,
            ...(format === 'jwt' ? { jwt: { sign: { alg: 'RS256' } } } : {}),
            accessTokenTTL: 3600,
          };
        },
      },
    },
    // The resource's scopes too when named: a client may ask for them when it registers.
    scopes: ['openid', 'offline_access', ...(options.resourceScope?.split(' ') ?? [])],
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub }),
    }),
    cookies: { keys: ['mcpkit-test-cookie-key'] },
  } as never);
  provider.proxy = false;
  server.on('request', provider.callback());
  const grants: string[] = [];
  provider.on('grant.success', (ctx) => {
    grants.push(String(ctx.oidc.params?.grant_type ?? '?'));
  });
  return {
    issuer,
    provider,
    /** grant_type of every successful token request, in order. */
    grants,
    /** Whether `token` is a live access token for `resource`. */
    async accepts(token: string | undefined, resource: string): Promise<boolean> {
      if (!token) return false;
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired) return false;
      const aud = at.aud as string | string[] | undefined;
      return Array.isArray(aud) ? aud.includes(resource) : aud === resource;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

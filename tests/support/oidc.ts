import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider, certified) on 127.0.0.1 for tests: dynamic
 * registration, resource indicators (one resource scope, `mcp:tools`), PKCE required,
 * refresh tokens rotated, and its development login and consent pages (any login).
 * `dPoP`: its DPoP feature on (RFC 9449), with nonces required when asked.
 */
export async function startOidcProvider(options: { dPoP?: { requireNonce?: boolean } } = {}) {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [],
    features: {
      registration: { enabled: true },
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
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'mcp:tools',
          audience: resource,
          accessTokenFormat: 'opaque',
          accessTokenTTL: 3600,
        }),
      },
    },
    scopes: ['openid', 'offline_access'],
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

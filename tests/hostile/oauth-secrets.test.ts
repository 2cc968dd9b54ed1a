import {
  authDefaults,
  ClientCredentialsProvider,
  LoopbackAuthorization,
  MemoryTokenStore,
  NeedsAuthError,
  OAuthProvider,
  redact,
} from '@mcpkit/auth';
import { describe, expect, it } from 'vitest';
import { startOAuthHostileServer } from './servers/oauth-hostile-server.mjs';

/**
 * Issue #13 item 5 (secrets scoped to a provider, bounded, cleared) and issue #10 finding
 * 9 on the auth side: no token, code, verifier or client secret reaches an error message
 * or a log line, even when a hostile server echoes them back.
 */

type Server = Awaited<ReturnType<typeof startOAuthHostileServer>>;

const unauthorized = (server: Server) => ({
  status: 401,
  wwwAuthenticate: undefined,
  url: server.url,
});

describe('secrets belong to one provider', () => {
  it('two providers do not share them; logout and close clear them', async () => {
    await using a = await startOAuthHostileServer({ accessToken: 'token-issued-to-a-0123456789' });
    await using b = await startOAuthHostileServer({ accessToken: 'token-issued-to-b-0123456789' });
    const providerFor = (server: Server, secret: string) =>
      new ClientCredentialsProvider({
        serverUrl: server.url,
        serverName: 'svc',
        clientId: 'svc',
        clientSecret: secret,
      });
    const pa = providerFor(a, 'client-secret-of-a-0123');
    const pb = providerFor(b, 'client-secret-of-b-0123');
    await pa.onUnauthorized(unauthorized(a));
    await pb.onUnauthorized(unauthorized(b));
    expect(await pa.headers()).toEqual({ authorization: 'Bearer token-issued-to-a-0123456789' });

    expect(pa.secrets.has('token-issued-to-a-0123456789')).toBe(true);
    expect(pa.secrets.has('client-secret-of-a-0123')).toBe(true);
    expect(pb.secrets.has('token-issued-to-a-0123456789')).toBe(false);
    expect(pb.secrets.has('client-secret-of-a-0123')).toBe(false);
    // Nothing is kept process-wide any more.
    expect(redact('token-issued-to-a-0123456789')).toBe('token-issued-to-a-0123456789');

    await pa.logout();
    expect(pa.secrets.size).toBe(0);
    await pb.close();
    expect(pb.secrets.size).toBe(0);
  });

  it(`stays bounded (${authDefaults.maxRememberedSecrets} values) however many tokens a provider sees`, async () => {
    await using server = await startOAuthHostileServer({});
    const provider = new ClientCredentialsProvider({
      serverUrl: server.url,
      serverName: 'svc',
      clientId: 'svc',
      clientSecret: 'client-secret-0123',
    });
    // Each 401 costs a discovery and a token request: 140 access and 140 refresh tokens.
    for (let i = 0; i < 140; i++) await provider.onUnauthorized(unauthorized(server));
    expect(server.seen.filter((r) => r.path === '/token')).toHaveLength(140);
    expect(provider.secrets.size).toBe(authDefaults.maxRememberedSecrets);
    const current = (await provider.tokens())!.access_token;
    expect(current).toBe('hostile-access-token-140-0123456789');
    expect(provider.secrets.has(current)).toBe(true);
    expect(provider.secrets.has('hostile-access-token-1-0123456789')).toBe(false);
  });

  it('tokens read from the store are hidden too', async () => {
    await using server = await startOAuthHostileServer({ token: 'echo-secrets' });
    const store = new MemoryTokenStore();
    const issuer = server.base;
    await store.set(server.url, {
      issuer,
      issuers: {
        [issuer]: {
          tokens: {
            access_token: 'stored-access-token-0123456789',
            token_type: 'Bearer',
            refresh_token: 'stored-refresh-token-0123456789',
          },
        },
      },
    });
    const logs: string[] = [];
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      store,
      onevent: (line) => logs.push(line),
      client: { clientId: 'pre', clientSecret: 'pre-registered-secret-0123' },
    });
    // The refresh is answered with an echo of the request; invalid_grant then needs a user.
    const error = await provider.onUnauthorized(unauthorized(server)).catch((e: unknown) => e);
    expect(NeedsAuthError.isInstance(error), String(error)).toBe(true);
    expect(server.seen.find((r) => r.path === '/token')?.body).toContain(
      'stored-refresh-token-0123456789',
    );
    const text = [(error as Error).message, ...logs].join('\n');
    expect(logs.some((l) => l.includes('refused (invalid_grant)'))).toBe(true);
    for (const secret of ['stored-refresh-token-0123456789', 'pre-registered-secret-0123'])
      expect(text).not.toContain(secret);
  });
});

describe('no secret in any message or log line of the failure paths', () => {
  /** Signs in against `server` through a stand-in browser; the error and every log line. */
  async function failedLogin(server: Server) {
    const logs: string[] = [];
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      onevent: (line) => logs.push(line),
      requestTimeoutMs: 2000,
      interactive: new LoopbackAuthorization({
        print: () => {},
        open: async (url) => void (await fetch(url).then((r) => r.text())),
      }),
    });
    const error = await provider.login().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    return { error: error as Error, text: [(error as Error).message, ...logs].join('\n') };
  }

  it('a token endpoint that echoes the request (code, verifier, client secret) back', async () => {
    await using server = await startOAuthHostileServer({ token: 'echo-secrets' });
    const { error, text } = await failedLogin(server);
    const sent = new URLSearchParams(server.seen.find((r) => r.path === '/token')!.body);
    expect(error.message).toContain('the token endpoint answered 400 invalid_grant');
    for (const key of ['code', 'code_verifier', 'client_secret']) {
      const value = sent.get(key)!;
      expect(value.length).toBeGreaterThan(8);
      expect(text, key).not.toContain(value);
    }
  });

  it('a registration endpoint that echoes a secret in its error', async () => {
    await using server = await startOAuthHostileServer({ register: 'echo-secrets' });
    const { error, text } = await failedLogin(server);
    expect(error.message).toContain('client registration at');
    expect(text).not.toContain('hostile-echo-secret-1');
  });

  it('a token endpoint that hangs: the timeout names the URL, not the request', async () => {
    await using server = await startOAuthHostileServer({ token: 'hang' });
    const { error, text } = await failedLogin(server);
    expect(error.message).toContain('did not finish within 2 s');
    expect(text).not.toContain('hostile-code-0123456789');
    expect(text).not.toContain('hostile-client-secret-0123456789');
  });
});

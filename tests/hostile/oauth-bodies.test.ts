import {
  AuthError,
  AuthResponseTooLargeError,
  authDefaults,
  ClientCredentialsProvider,
  LoopbackAuthorization,
  OAuthProvider,
} from '@mcpkit/auth';
import { describe, expect, it } from 'vitest';
import {
  ENDLESS_CAP_BYTES,
  type HostileOptions,
  startOAuthHostileServer,
} from './servers/oauth-hostile-server.mjs';

/**
 * Finding 6 of issue #10, the auth side: every body the auth package reads is bounded
 * while it is read. A hostile server streams documents that never end (or declare 1 GiB);
 * the client must stop at its limit, hang up, and say so with a typed error.
 */

type Server = Awaited<ReturnType<typeof startOAuthHostileServer>>;

/** Resolves when the server saw the client hang up on the endless body at `path`. */
function hangUp(server: Server, path: string): Promise<void> {
  return new Promise((resolve) => {
    const onClosed = (closed: string) => {
      if (closed !== path) return;
      server.events.off('stream-closed', onClosed);
      resolve();
    };
    server.events.on('stream-closed', onClosed);
  });
}

/** A stand-in for the browser: follows the authorization server's redirect back. */
const browser = () =>
  new LoopbackAuthorization({
    print: () => {},
    open: async (url) => void (await fetch(url).then((r) => r.text())),
  });

async function loginAgainst(options: HostileOptions, path: string) {
  await using server = await startOAuthHostileServer(options);
  const closed = hangUp(server, path);
  const provider = new OAuthProvider({
    serverUrl: server.url,
    serverName: 'hostile',
    interactive: browser(),
  });
  const error = await provider.login().catch((e: unknown) => e);
  await closed;
  return { error, stream: server.stream(path)! };
}

function expectTooLarge(error: unknown, what: string) {
  expect(AuthResponseTooLargeError.isInstance(error), String(error)).toBe(true);
  expect(AuthError.isInstance(error)).toBe(true);
  const e = error as AuthResponseTooLargeError;
  expect(e.code).toBe('MCPKIT_AUTH_RESPONSE_TOO_LARGE');
  expect(e.limitBytes).toBe(authDefaults.maxResponseBytes);
  expect(e.message).toContain(`server "hostile": ${what}`);
  expect(e.message).toContain('sent more than 256 KiB; stopped reading');
}

describe('documents that never end', () => {
  const cases: Array<[string, HostileOptions, string, string]> = [
    [
      'protected-resource metadata',
      { endless: ['/.well-known/oauth-protected-resource/mcp'] },
      '/.well-known/oauth-protected-resource/mcp',
      'protected-resource metadata',
    ],
    [
      'authorization-server metadata',
      { endless: ['/.well-known/oauth-authorization-server'] },
      '/.well-known/oauth-authorization-server',
      'authorization-server metadata',
    ],
    ['a registration response', { register: 'endless' }, '/register', 'client registration'],
    ['a token response', { token: 'endless' }, '/token', 'token request'],
  ];
  for (const [what, options, path, step] of cases) {
    it(`${what}: AuthResponseTooLargeError at 256 KiB, and the client hangs up`, async () => {
      const { error, stream } = await loginAgainst(options, path);
      expectTooLarge(error, step);
      expect(stream.hungUp).toBe(true);
      expect(stream.capped).toBe(false);
      expect(stream.sent).toBeLessThan(ENDLESS_CAP_BYTES);
    });
  }

  it('a document that declares 1 GiB is refused without reading it', async () => {
    const path = '/.well-known/oauth-authorization-server';
    const { error, stream } = await loginAgainst({ huge: [path] }, path);
    expectTooLarge(error, 'authorization-server metadata');
    expect(stream.hungUp).toBe(true);
  });

  it('a configured metadata URL (authServerMetadataUrl) is bounded too', async () => {
    const path = '/pinned-metadata';
    await using server = await startOAuthHostileServer({ endless: [path] });
    const closed = hangUp(server, path);
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      authorizationServerMetadataUrl: `${server.base}${path}`,
      interactive: browser(),
    });
    const error = await provider.login().catch((e: unknown) => e);
    await closed;
    expectTooLarge(error, 'the configured authorization-server metadata');
  });

  it('client credentials: an endless token response is bounded the same way', async () => {
    await using server = await startOAuthHostileServer({ token: 'endless' });
    const closed = hangUp(server, '/token');
    const provider = new ClientCredentialsProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      clientId: 'svc',
      clientSecret: 'svc-secret-0123456789',
    });
    const error = await provider
      .onUnauthorized({ status: 401, wwwAuthenticate: undefined, url: server.url })
      .catch((e: unknown) => e);
    await closed;
    expectTooLarge(error, 'client credentials');
  });

  it('a limit of your own applies (maxResponseBytes)', async () => {
    await using server = await startOAuthHostileServer({});
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      maxResponseBytes: 64,
      interactive: browser(),
    });
    const error = await provider.login().catch((e: unknown) => e);
    expect(AuthResponseTooLargeError.isInstance(error)).toBe(true);
    expect((error as AuthResponseTooLargeError).limitBytes).toBe(64);
    expect((error as Error).message).toContain('sent more than 64 bytes');
  });
});

describe('error answers that never end', () => {
  for (const [what, options, path, expected] of [
    ['registration', { register: 'endless-error' }, '/register', 'client registration at'],
    ['the token endpoint', { token: 'endless-error' }, '/token', 'the token endpoint answered 500'],
  ] as const) {
    it(`${what} answers 500 with an endless body: only an excerpt is read, then AuthError`, async () => {
      const { error, stream } = await loginAgainst(options, path);
      expect(AuthError.isInstance(error), String(error)).toBe(true);
      expect(AuthResponseTooLargeError.isInstance(error)).toBe(false);
      expect((error as Error).message).toContain(expected);
      expect((error as Error).message).toMatch(/answered 500\b/);
      expect(stream.hungUp).toBe(true);
      expect(stream.sent).toBeLessThan(ENDLESS_CAP_BYTES);
    });
  }
});

import { connect } from 'node:net';
import { AuthError, LoopbackAuthorization, OAuthProvider } from '@mcpkit/auth';
import { TimeoutError } from '@mcpkit/jsonrpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';

/**
 * The failure paths of a sign-in against a real authorization server (oidc-provider),
 * no browser needed: a sign-in nobody finishes ends at its deadline with the listener
 * closed, and a code the server refuses is an error that shows neither the code, the
 * verifier, nor any token, in its message or in the log.
 */
describe('sign-in failures against oidc-provider', () => {
  let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
  let mcp: StreamableHttpTestServer;

  beforeAll(async () => {
    oidc = await startOidcProvider();
    mcp = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
      authorize: (req) => oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
    });
  });

  afterAll(async () => {
    await mcp?.close();
    await oidc?.close();
  });

  const refused = (uri: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(uri).port), '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        reject(new Error(`${uri} still listens`));
      });
      socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? ''));
    });

  it('a sign-in nobody finishes: TimeoutError at the login deadline, after a real registration; the port is closed', async () => {
    const logs: string[] = [];
    const opened: string[] = [];
    const provider = new OAuthProvider({
      serverUrl: mcp.url,
      serverName: 'oidc',
      onevent: (line) => logs.push(line),
      interactive: new LoopbackAuthorization({ print: () => {}, open: (u) => void opened.push(u) }),
    });
    const error = await provider.login({ timeoutMs: 3000 }).catch((e: unknown) => e);
    expect(TimeoutError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toBe(
      'server "oidc": the sign-in did not finish within 3 s (it was not completed in the browser)',
    );
    expect(opened).toHaveLength(1);
    expect(logs.some((l) => l.startsWith('server "oidc": registered as client'))).toBe(true);
    const redirect = new URL(opened[0]!).searchParams.get('redirect_uri')!;
    expect(await refused(redirect)).toBe('ECONNREFUSED');
  });

  it('a code the server refuses (invalid_grant): the code and verifier appear nowhere', async () => {
    const logs: string[] = [];
    let forged = '';
    const provider = new OAuthProvider({
      serverUrl: mcp.url,
      serverName: 'oidc',
      onevent: (line) => logs.push(line),
      interactive: new LoopbackAuthorization({
        print: () => {},
        open: async (url) => {
          // The browser comes back with our state and a code the server never issued.
          const u = new URL(url);
          forged = `forged-code-${Date.now()}-0123456789`;
          const back = new URL(u.searchParams.get('redirect_uri')!);
          back.searchParams.set('code', forged);
          back.searchParams.set('state', u.searchParams.get('state')!);
          back.searchParams.set('iss', oidc.issuer);
          await fetch(back).then((r) => r.text());
        },
      }),
    });
    const error = await provider.login().catch((e: unknown) => e);
    expect(AuthError.isInstance(error), String(error)).toBe(true);
    expect((error as AuthError).oauthError).toBe('invalid_grant');
    expect((error as Error).message).toContain(
      'server "oidc": token request: the token endpoint answered 400 invalid_grant',
    );
    const text = [(error as Error).message, ...logs].join('\n');
    expect(forged.length).toBeGreaterThan(20);
    expect(text).not.toContain(forged);
    expect(text).not.toMatch(/code(_verifier)?=(?!\[redacted\])/);
  });
});

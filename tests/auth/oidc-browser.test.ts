import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileTokenStore, LoopbackAuthorization, NeedsAuthError, OAuthProvider } from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import { SseTransport } from '@mcpkit/transport-sse';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, signInAndConsent } from '../support/browser.js';
import { startOidcProvider } from '../support/oidc.js';
import { startSseServer } from '../support/sse-server.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';

/**
 * The authorization code flow end to end against a real authorization server
 * (oidc-provider) with a real browser (Debian's headless Chromium, driven by
 * playwright-core) filling in the login and consent pages, in front of a Streamable
 * HTTP MCP server that accepts only the provider's access tokens for its resource.
 */
describe.skipIf(!haveChromium())(
  'OAuth against oidc-provider, signed in with headless Chromium',
  () => {
    let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
    let mcp: StreamableHttpTestServer;
    let browser: Browser;
    let scratch: string | undefined;
    let storeDir: string;
    let store: FileTokenStore;
    let auth: OAuthProvider;
    let client: McpClient;
    const logs: string[] = [];
    const pages: string[] = [];

    beforeAll(async () => {
      oidc = await startOidcProvider();
      mcp = await startStreamableHttpServer({
        setup: minimalMcpServer(),
        protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
        authorize: (req) =>
          oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
      });
      browser = await launchChromium();
      scratch = await mkdtemp(path.join(tmpdir(), 'mcpkit-oidc-'));
      storeDir = path.join(scratch, 'auth');
      store = new FileTokenStore(storeDir);
      auth = new OAuthProvider({
        serverUrl: mcp.url,
        serverName: 'oidc',
        store,
        onevent: (line) => logs.push(line),
        interactive: new LoopbackAuthorization({
          open: async (url) => {
            pages.push(await signInAndConsent(browser, url));
          },
        }),
      });
      client = new McpClient({ name: 'oidc', eraCache: false });
      client.onerror = (e) => logs.push(e.message);
    }, 60_000);

    afterAll(async () => {
      try {
        await client?.close();
        await browser?.close();
        await mcp?.close();
        await oidc?.close();
      } finally {
        if (scratch) await rm(scratch, { recursive: true, force: true });
      }
    });

    it('a 401 starts the flow: registration, browser sign-in and consent, code for tokens, and the call succeeds', async () => {
      await client.connect(new StreamableHttpTransport({ url: mcp.url, name: 'oidc', auth }));
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
      expect(pages).toHaveLength(1);
      expect(pages[0]).toContain('You can close this tab');
      const tokens = await auth.tokens();
      expect(tokens?.refresh_token).toBeTruthy();
      expect(tokens?.scope?.split(' ')).toContain('mcp:tools');
      expect(oidc.grants).toEqual(['authorization_code']);
    });

    it('the token file is private (0600, in a 0700 directory) and holds the tokens', async () => {
      const files = await readdir(storeDir);
      expect(files).toHaveLength(1);
      expect((await stat(storeDir)).mode & 0o777).toBe(0o700);
      const file = path.join(storeDir, files[0]!);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readFile(file, 'utf8')).toContain((await auth.tokens())!.access_token);
    });

    it('an expiring token is refreshed before use, and the refresh token is rotated', async () => {
      const before = (await auth.tokens())!;
      const record = (await store.get(mcp.url))!;
      record.issuers[record.issuer!]!.tokens!.expires_at = Date.now() - 1000;
      await store.set(mcp.url, record);
      auth.reload();
      const result = await client.callTool({ name: 'echo', arguments: { text: 'after refresh' } });
      expect(result.content).toEqual([{ type: 'text', text: 'after refresh' }]);
      const after = (await auth.tokens())!;
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.refresh_token).not.toBe(before.refresh_token);
      // The old refresh token is spent at the authorization server.
      const old = await oidc.provider.RefreshToken.find(before.refresh_token!);
      expect(!old || old.consumed).toBeTruthy();
      expect(oidc.grants).toEqual(['authorization_code', 'refresh_token']);
    });

    it('ten concurrent 401s cause exactly one refresh, and every call then succeeds', async () => {
      const { access_token } = (await auth.tokens())!;
      await (await oidc.provider.AccessToken.find(access_token))!.destroy();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          client.callTool({ name: 'echo', arguments: { text: `call ${i}` } }),
        ),
      );
      expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(
        Array.from({ length: 10 }, (_, i) => `call ${i}`),
      );
      expect(oidc.grants.filter((g) => g === 'refresh_token')).toHaveLength(2);
      expect(pages).toHaveLength(1);
    });

    it('a refresh token the server revoked (invalid_grant) leads to a new sign-in, not an error', async () => {
      const before = (await auth.tokens())!;
      await (await oidc.provider.RefreshToken.find(before.refresh_token!))!.destroy();
      await (await oidc.provider.AccessToken.find(before.access_token))!.destroy();
      const result = await client.callTool({
        name: 'echo',
        arguments: { text: 'after revocation' },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'after revocation' }]);
      expect(pages).toHaveLength(2);
      expect(logs.some((l) => l.includes('refused (invalid_grant)'))).toBe(true);
    });

    it('a registration the server no longer knows (invalid_client) is made again, then a new sign-in', async () => {
      const record = (await store.get(mcp.url))!;
      const entry = record.issuers[record.issuer!]!;
      const oldClient = entry.client!.client_id;
      entry.client = { ...entry.client!, client_id: 'a-client-the-server-never-saw' };
      await store.set(mcp.url, record);
      await (await oidc.provider.AccessToken.find(entry.tokens!.access_token))!.destroy();
      const result = await client.callTool({
        name: 'echo',
        arguments: { text: 'registered again' },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'registered again' }]);
      const now = (await store.get(mcp.url))!;
      const client2 = now.issuers[now.issuer!]!.client!.client_id;
      expect(client2).not.toBe('a-client-the-server-never-saw');
      expect(client2).not.toBe(oldClient);
      expect(pages).toHaveLength(3);
    });

    it('without a browser, a server that needs a new sign-in is NeedsAuthError with what to do', async () => {
      const quiet = new OAuthProvider({
        serverUrl: mcp.url,
        serverName: 'oidc',
        store: new FileTokenStore(path.join(storeDir, '..', 'other')),
      });
      const other = new McpClient({ name: 'oidc', eraCache: false });
      const error = await other
        .connect(new StreamableHttpTransport({ url: mcp.url, name: 'oidc', auth: quiet }))
        .catch((e: unknown) => e);
      expect(NeedsAuthError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('an interactive sign-in is needed');
    });

    it('the same provider type serves a legacy HTTP+SSE server: its GET stream and POSTs carry the token', async () => {
      const sse = await startSseServer((peer) => minimalMcpServer()(peer), {
        protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
        authorize: (req) =>
          oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), sse.url),
      });
      try {
        const sseAuth = new OAuthProvider({
          serverUrl: sse.url,
          serverName: 'legacy-sse',
          onevent: (line) => logs.push(line),
          interactive: new LoopbackAuthorization({
            open: async (url) => {
              pages.push(await signInAndConsent(browser, url));
            },
          }),
        });
        const legacy = new McpClient({ name: 'legacy-sse' });
        await legacy.connect(new SseTransport({ url: sse.url, name: 'legacy-sse', auth: sseAuth }));
        expect((await legacy.listTools()).map((t) => t.name)).toEqual(['echo']);
        expect(legacy.protocolVersion).toBe('2025-11-25');
        await legacy.close();
      } finally {
        await sse.close();
      }
    });

    it('no token, code or secret appears in any log line of the run', async () => {
      const tokens = (await auth.tokens())!;
      expect(logs.length).toBeGreaterThan(3);
      const text = logs.join('\n');
      expect(text).not.toContain(tokens.access_token);
      expect(text).not.toContain(tokens.refresh_token!);
      expect(text).not.toMatch(/code=(?!\[redacted\])/);
    });
  },
);

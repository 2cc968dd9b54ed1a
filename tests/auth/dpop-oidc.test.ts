import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileTokenStore, LoopbackAuthorization, OAuthProvider } from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, signInAndConsent } from '../support/browser.js';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';
import { type DpopResourceServer, startDpopResourceServer } from './dpop-resource-server.js';

/**
 * DPoP end to end: oidc-provider with its DPoP feature on (and nonces required at its token
 * endpoint), signed in with headless Chromium; the MCP server sits behind a resource server
 * that verifies every proof (signature, htm, htu, iat, ath, the token's key binding, jti
 * never seen before) and asks for its own nonce.
 */
describe.skipIf(!haveChromium())(
  'DPoP against oidc-provider, signed in with headless Chromium',
  () => {
    let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
    let upstream: StreamableHttpTestServer;
    let rs: DpopResourceServer;
    let browser: Browser;
    let scratch: string | undefined;
    let storeDir: string;
    let store: FileTokenStore;
    let auth: OAuthProvider;
    let client: McpClient;
    let rsNonce = 'rs-nonce-1';
    const grantErrors: string[] = [];
    const pages: string[] = [];
    const logs: string[] = [];

    beforeAll(async () => {
      oidc = await startOidcProvider({ dPoP: { requireNonce: true } });
      oidc.provider.on('grant.error', (_ctx, error: { error?: string }) => {
        grantErrors.push(String(error.error));
      });
      upstream = await startStreamableHttpServer({
        setup: minimalMcpServer(),
        responseMode: 'json',
        standaloneGet: false,
      });
      rs = await startDpopResourceServer({
        upstream: upstream.url,
        authorizationServers: [oidc.issuer],
        scopes: ['mcp:tools'],
        nonce: () => rsNonce,
        async boundKey(token, resource) {
          const at = await oidc.provider.AccessToken.find(token);
          if (!at || at.isExpired) return undefined;
          const aud = at.aud as string | string[] | undefined;
          if (!(Array.isArray(aud) ? aud.includes(resource) : aud === resource)) return undefined;
          return at.jkt;
        },
      });
      browser = await launchChromium();
      scratch = await mkdtemp(path.join(tmpdir(), 'mcpkit-dpop-'));
      storeDir = path.join(scratch, 'auth');
      store = new FileTokenStore(storeDir);
      auth = new OAuthProvider({
        serverUrl: rs.url,
        serverName: 'dpop',
        store,
        onevent: (line) => logs.push(line),
        interactive: new LoopbackAuthorization({
          open: async (url) => {
            pages.push(await signInAndConsent(browser, url));
          },
        }),
      });
      client = new McpClient({ name: 'dpop', eraCache: false });
    }, 60_000);

    afterAll(async () => {
      try {
        await client?.close();
        await browser?.close();
        await rs?.close();
        await upstream?.close();
        await oidc?.close();
      } finally {
        if (scratch) await rm(scratch, { recursive: true, force: true });
      }
    });

    it('the code flow gets a DPoP-bound token (after the token endpoint asks for its nonce) and every MCP request carries a proof the resource server verifies', async () => {
      await client.connect(new StreamableHttpTransport({ url: rs.url, name: 'dpop', auth }));
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
      expect(pages).toHaveLength(1);
      const tokens = (await auth.tokens())!;
      expect(tokens.token_type).toBe('DPoP');
      // The token endpoint refused the first proof for want of its nonce; the retry carried it.
      expect(grantErrors).toEqual(['use_dpop_nonce']);
      expect(oidc.grants).toEqual(['authorization_code']);
      // Bound to the stored key, as the authorization server records it.
      const record = (await store.get(rs.url))!;
      const key = record.issuers[record.issuer!]!.dpop_key!;
      const at = await oidc.provider.AccessToken.find(tokens.access_token);
      expect(at?.jkt).toBe(await calculateJwkThumbprint(key.jwk, 'sha256'));
      // Before the sign-in requests carry no token (the era probe and its fallback may both
      // be refused); after it, the resource server asked for its nonce once, and everything
      // after carried it.
      expect(rs.refusals[0]).toBe('no DPoP token');
      expect(rs.refusals.filter((r) => r !== 'no DPoP token')).toEqual(['nonce required']);
      expect(rs.accepted.length).toBeGreaterThanOrEqual(2);
      for (const r of rs.accepted) {
        expect(r.authorization).toBe(`DPoP ${tokens.access_token}`);
        expect(decodeJwt(r.dpop).nonce).toBe('rs-nonce-1');
        expect(decodeProtectedHeader(r.dpop).jwk).not.toHaveProperty('d');
      }
      expect(new Set(rs.accepted.map((r) => decodeJwt(r.dpop).jti)).size).toBe(rs.accepted.length);
    });

    it('the private key lives in the 0600 token file, next to the tokens it binds', async () => {
      const files = await readdir(storeDir);
      expect(files).toHaveLength(1);
      const file = path.join(storeDir, files[0]!);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(await readFile(file, 'utf8'));
      const entry = saved.record.issuers[saved.record.issuer];
      expect(entry.dpop_key.alg).toBe('ES256');
      expect(typeof entry.dpop_key.jwk.d).toBe('string');
      expect(entry.tokens.token_type).toBe('DPoP');
    });

    it('a refresh carries a proof by the same key: the new token is bound to it too', async () => {
      const before = (await auth.tokens())!;
      const record = (await store.get(rs.url))!;
      record.issuers[record.issuer!]!.tokens!.expires_at = Date.now() - 1000;
      await store.set(rs.url, record);
      auth.reload();
      const result = await client.callTool({ name: 'echo', arguments: { text: 'refreshed' } });
      expect(result.content).toEqual([{ type: 'text', text: 'refreshed' }]);
      const after = (await auth.tokens())!;
      expect(after.access_token).not.toBe(before.access_token);
      expect(after.token_type).toBe('DPoP');
      expect(oidc.grants).toEqual(['authorization_code', 'refresh_token']);
      const jkt = await calculateJwkThumbprint(
        record.issuers[record.issuer!]!.dpop_key!.jwk,
        'sha256',
      );
      expect((await oidc.provider.AccessToken.find(after.access_token))?.jkt).toBe(jkt);
      expect((await oidc.provider.RefreshToken.find(after.refresh_token!))?.jkt).toBe(jkt);
    });

    it('a new resource-server nonce costs one refused request, then the call goes through', async () => {
      rsNonce = 'rs-nonce-2';
      const refused = rs.refusals.length;
      const result = await client.callTool({ name: 'echo', arguments: { text: 'new nonce' } });
      expect(result.content).toEqual([{ type: 'text', text: 'new nonce' }]);
      expect(rs.refusals.slice(refused)).toEqual(['nonce required']);
      expect(decodeJwt(rs.accepted.at(-1)!.dpop).nonce).toBe('rs-nonce-2');
    });

    it('a replayed proof is refused by the resource server, though token and proof are genuine', async () => {
      const last = rs.accepted.at(-1)!;
      const res = await fetch(rs.url, {
        method: 'POST',
        headers: {
          authorization: last.authorization,
          dpop: last.dpop,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_dpop_proof"');
      expect(rs.refusals.at(-1)).toBe('replayed proof');
    });

    it('no token, proof key or code appears in any log line', async () => {
      const tokens = (await auth.tokens())!;
      const record = (await store.get(rs.url))!;
      const text = logs.join('\n');
      expect(logs.some((l) => l.includes('made a DPoP key (ES256)'))).toBe(true);
      expect(text).not.toContain(tokens.access_token);
      expect(text).not.toContain(tokens.refresh_token!);
      expect(text).not.toContain(String(record.issuers[record.issuer!]!.dpop_key!.jwk.d));
    });
  },
);

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientCredentialsProvider } from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import { SseTransport } from '@mcpkit/transport-sse';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { startSseServer } from '../support/sse-server.js';
import { minimalMcpServer } from '../support/streamable-http-server.js';
import { proofVerifier } from './dpop-resource-server.js';

/**
 * DPoP through the legacy HTTP+SSE transport: its GET stream and its POSTs (to an endpoint
 * with a `sessionId` query) each carry a proof for their own method and URL. The
 * authorization server (node:http) issues tokens bound to the key of the token request's
 * proof; the SSE server verifies every proof. The host asks for DPoP (`dpop: true`): the
 * authorization server does not advertise it.
 */
describe('DPoP over the legacy HTTP+SSE transport', () => {
  it('the GET stream and every POST carry a proof for their own method and URL (without the query)', async () => {
    const boundTo = new Map<string, string>();
    let tokens = 0;
    const as = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const origin = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/.well-known/oauth-authorization-server')
        return send(200, {
          issuer: origin,
          token_endpoint: `${origin}/token`,
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        });
      if (req.url !== '/token') return send(404, {});
      const proof = String(req.headers.dpop);
      const { payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt' });
      if (payload.htm !== 'POST' || payload.htu !== `${origin}/token`)
        return send(400, { error: 'invalid_dpop_proof' });
      const token = `bound-token-${++tokens}`;
      boundTo.set(token, await calculateJwkThumbprint(decodeProtectedHeader(proof).jwk!, 'sha256'));
      send(200, { access_token: token, token_type: 'DPoP', expires_in: 600 });
    });
    await new Promise<void>((r) => as.listen(0, '127.0.0.1', r));
    const asUrl = `http://127.0.0.1:${(as.address() as AddressInfo).port}`;
    const verify = proofVerifier(async (token) => boundTo.get(token));
    const checked: Array<{ method: string; path: string; htu: string; ok: boolean }> = [];
    const sse = await startSseServer((peer) => minimalMcpServer()(peer), {
      protectedResource: { authorizationServers: [asUrl] },
      async authorize(req) {
        const v = await verify(req, sse.url);
        checked.push({
          method: req.method ?? '',
          path: req.url ?? '',
          htu: v.ok ? String(v.payload.htu) : '',
          ok: v.ok,
        });
        return v.ok;
      },
    });
    const client = new McpClient({ name: 'dpop-sse' });
    try {
      const auth = new ClientCredentialsProvider({
        serverUrl: sse.url,
        serverName: 'dpop-sse',
        clientId: 'svc',
        clientSecret: 'svc-secret-0123456789',
        dpop: true,
      });
      await client.connect(new SseTransport({ url: sse.url, name: 'dpop-sse', auth }));
      expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
      expect(tokens).toBe(1);
      const accepted = checked.filter((c) => c.ok);
      const get = accepted.find((c) => c.method === 'GET')!;
      expect(get.htu).toBe(sse.url);
      const posts = accepted.filter((c) => c.method === 'POST');
      expect(posts.length).toBeGreaterThanOrEqual(2);
      for (const p of posts) {
        expect(p.path).toContain('?');
        expect(p.htu).not.toContain('?');
        expect(p.htu).toBe(`${new URL(sse.url).origin}${new URL(p.path, sse.url).pathname}`);
      }
      // Refused only before the token existed.
      expect(checked.filter((c) => !c.ok)).toHaveLength(1);
    } finally {
      await client.close();
      await sse.close();
      as.closeAllConnections();
      await new Promise<void>((r) => as.close(() => r()));
    }
  });
});

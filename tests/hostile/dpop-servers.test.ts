import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, ClientCredentialsProvider, type DpopSetting } from '@mcpkit/auth';
import { type JsonRpcMessage, UnauthorizedError } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';

/**
 * DPoP against authorization and resource servers that misbehave: nonces forever, nonces
 * that are not nonces, tokens of the wrong type, algorithms this client cannot sign with.
 * Real node:http servers on 127.0.0.1; each test says what the server does wrong.
 */

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: Seen, res: ServerResponse) => void;

async function listen(handler: Handler) {
  const seen: Seen[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const s: Seen = {
      method: req.method ?? '',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    seen.push(s);
    handler(s, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) =>
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(body));

interface Setup {
  /** The authorization server's `dpop_signing_alg_values_supported`. */
  algs?: unknown;
  /** The token endpoint. */
  token: (req: Seen, res: ServerResponse, count: number) => void;
  /** The MCP endpoint, for a request that carries a token. */
  mcp?: (req: Seen, res: ServerResponse, count: number) => void;
  dpop?: DpopSetting;
  /** The schemes the MCP server's 401 offers. Default both, DPoP first. */
  schemes?: Array<'DPoP' | 'Bearer'>;
}

/** An authorization server and an MCP server in front of it, and a provider for them. */
async function setup(s: Setup) {
  let tokenCount = 0;
  let mcpCount = 0;
  const as = await listen((req, res) => {
    if (req.path === '/.well-known/oauth-authorization-server')
      return json(res, 200, {
        issuer: as.origin,
        token_endpoint: `${as.origin}/token`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        ...(s.algs !== undefined ? { dpop_signing_alg_values_supported: s.algs } : {}),
      });
    if (req.path === '/token') return s.token(req, res, tokenCount++);
    res.writeHead(404).end();
  });
  const rs = await listen((req, res) => {
    const url = `${rs.origin}/mcp`;
    if (req.path === '/.well-known/oauth-protected-resource/mcp')
      return json(res, 200, { resource: url, authorization_servers: [as.origin] });
    const prm = `resource_metadata="${rs.origin}/.well-known/oauth-protected-resource/mcp"`;
    if (!req.headers.authorization)
      return res
        .writeHead(401, {
          'www-authenticate': (s.schemes ?? ['DPoP', 'Bearer'])
            .map((x) => `${x} ${prm}`)
            .join(', '),
        })
        .end();
    if (s.mcp) return s.mcp(req, res, mcpCount++);
    const message = JSON.parse(req.body) as { id: number };
    json(res, 200, { jsonrpc: '2.0', id: message.id, result: {} });
  });
  const auth = new ClientCredentialsProvider({
    serverUrl: `${rs.origin}/mcp`,
    serverName: 'hostile',
    clientId: 'svc',
    clientSecret: 'svc-secret-0123456789',
    ...(s.dpop !== undefined ? { dpop: s.dpop } : {}),
  });
  const transport = new StreamableHttpTransport({ url: `${rs.origin}/mcp`, name: 'hostile', auth });
  const replies: JsonRpcMessage[] = [];
  transport.onmessage = (m) => replies.push(m);
  await transport.start();
  const ping = (id: number) => transport.send({ jsonrpc: '2.0', id, method: 'ping' });
  return {
    as,
    rs,
    auth,
    transport,
    replies,
    ping,
    tokenRequests: () => as.seen.filter((r) => r.path === '/token'),
    mcpRequests: () => rs.seen.filter((r) => r.path === '/mcp'),
    async [Symbol.asyncDispose]() {
      await transport.close();
      await rs[Symbol.asyncDispose]();
      await as[Symbol.asyncDispose]();
    },
  };
}

const dpopToken = (res: ServerResponse, headers = {}) =>
  json(
    res,
    200,
    { access_token: 'dpop-bound-token-0123', token_type: 'DPoP', expires_in: 600 },
    headers,
  );

describe('DPoP against hostile servers', () => {
  it('a token endpoint that asks for a new nonce forever is retried once, then the error names use_dpop_nonce', async () => {
    let n = 0;
    await using t = await setup({
      algs: ['ES256'],
      token: (_req, res) =>
        json(res, 400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': `nonce-${n++}` }),
    });
    const error = await t.ping(1).catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as AuthError).oauthError).toBe('use_dpop_nonce');
    expect((error as Error).message).toContain('server "hostile"');
    const requests = t.tokenRequests();
    expect(requests).toHaveLength(2);
    expect(decodeJwt(String(requests[0]!.headers.dpop)).nonce).toBeUndefined();
    expect(decodeJwt(String(requests[1]!.headers.dpop)).nonce).toBe('nonce-0');
  });

  it.each([
    ['a space and a quote', 'bad "nonce"'],
    ['2000 characters', 'n'.repeat(2000)],
    ['nothing', undefined],
  ])('a use_dpop_nonce whose nonce is %s is not retried and not used', async (_what, nonce) => {
    await using t = await setup({
      algs: ['ES256'],
      token: (_req, res) =>
        json(res, 400, { error: 'use_dpop_nonce' }, nonce ? { 'dpop-nonce': nonce } : {}),
    });
    const error = await t.ping(1).catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect(t.tokenRequests()).toHaveLength(1);
  });

  it('a resource server that refuses the nonce it gave gets one retry, not a loop', async () => {
    await using t = await setup({
      algs: ['ES256'],
      token: (_req, res) => dpopToken(res),
      mcp: (_req, res) =>
        res
          .writeHead(401, {
            'www-authenticate': 'DPoP error="use_dpop_nonce"',
            'dpop-nonce': 'the-same-nonce',
          })
          .end(),
    });
    const error = await t.ping(1).catch((e: unknown) => e);
    expect(UnauthorizedError.isInstance(error)).toBe(true);
    // Without a token; with the token and no nonce; with the nonce: refused again, the end.
    const sent = t.mcpRequests();
    expect(sent).toHaveLength(3);
    expect(
      sent.map((r) => (r.headers.dpop ? decodeJwt(String(r.headers.dpop)).nonce : '-')),
    ).toEqual(['-', undefined, 'the-same-nonce']);
    expect(t.tokenRequests()).toHaveLength(1);
  });

  it('a resource server with a new nonce on every refusal costs at most two retries per request', async () => {
    let n = 0;
    await using t = await setup({
      algs: ['ES256'],
      token: (_req, res) => dpopToken(res),
      mcp: (_req, res) =>
        res
          .writeHead(401, {
            'www-authenticate': 'DPoP error="use_dpop_nonce"',
            'dpop-nonce': `rotating-${n++}`,
          })
          .end(),
    });
    await expect(t.ping(1)).rejects.toSatisfy((e) => UnauthorizedError.isInstance(e));
    expect(t.mcpRequests()).toHaveLength(3);
    await expect(t.ping(2)).rejects.toSatisfy((e) => UnauthorizedError.isInstance(e));
    expect(t.mcpRequests()).toHaveLength(6);
    expect(t.tokenRequests()).toHaveLength(1);
  });

  it('a Bearer token in answer to a proof is refused when the host asked for DPoP', async () => {
    await using t = await setup({
      dpop: true,
      token: (_req, res) =>
        json(res, 200, { access_token: 'bearer-token-0123', token_type: 'Bearer' }),
    });
    const error = await t.ping(1).catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/not sender-constrained.*dpop: false/);
    expect(t.tokenRequests()[0]!.headers.dpop).toBeTruthy();
    expect(await t.auth.tokens()).toBeUndefined();
  });

  it('where DPoP was not asked for by the host, a Bearer token in answer to a proof is used as one: no proof goes with it', async () => {
    await using t = await setup({
      algs: ['ES256'],
      token: (_req, res) =>
        json(res, 200, { access_token: 'bearer-token-0123', token_type: 'bearer' }),
    });
    await t.ping(1);
    const last = t.mcpRequests().at(-1)!;
    expect(last.headers.authorization).toBe('Bearer bearer-token-0123');
    expect(last.headers.dpop).toBeUndefined();
  });

  it('a resource that challenges with Bearer alone gets Bearer tokens, though the authorization server offers DPoP', async () => {
    await using t = await setup({
      algs: ['ES256'],
      schemes: ['Bearer'],
      token: (_req, res) =>
        json(res, 200, { access_token: 'bearer-token-0123', token_type: 'Bearer' }),
    });
    await t.ping(1);
    expect(t.tokenRequests()[0]!.headers.dpop).toBeUndefined();
    const last = t.mcpRequests().at(-1)!;
    expect(last.headers.authorization).toBe('Bearer bearer-token-0123');
    expect(last.headers.dpop).toBeUndefined();
  });

  it('a DPoP token issued to a request without a proof is refused (dpop: false)', async () => {
    await using t = await setup({
      algs: ['ES256'],
      dpop: false,
      token: (_req, res) => dpopToken(res),
    });
    const error = await t.ping(1).catch((e: unknown) => e);
    expect(AuthError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('carried no DPoP proof');
    expect(t.tokenRequests()[0]!.headers.dpop).toBeUndefined();
  });

  it('algorithms this client cannot sign with: no DPoP when offered, an error naming them when asked for', async () => {
    {
      await using t = await setup({
        algs: ['HS256', 'none'],
        token: (_req, res) => json(res, 200, { access_token: 'bearer-token-0123' }),
      });
      await t.ping(1);
      expect(t.tokenRequests()[0]!.headers.dpop).toBeUndefined();
    }
    await using t = await setup({
      algs: ['HS256', 'none'],
      dpop: true,
      token: (_req, res) => dpopToken(res),
    });
    const error = await t.ping(1).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/accepts DPoP proofs signed with HS256, none/);
    expect(t.tokenRequests()).toHaveLength(0);
  });

  it('proofs: a fresh jti each, htm and htu of the request, ath of the token, the public key only', async () => {
    await using t = await setup({ algs: ['ES384', 'ES256'], token: (_req, res) => dpopToken(res) });
    await t.ping(1);
    await t.ping(2);
    const sent = t.mcpRequests().filter((r) => r.headers.dpop);
    expect(sent).toHaveLength(2);
    const proofs = sent.map((r) => String(r.headers.dpop));
    const claims = proofs.map((p) => decodeJwt(p));
    expect(new Set(claims.map((c) => c.jti)).size).toBe(2);
    for (const [i, c] of claims.entries()) {
      expect(c.htm).toBe('POST');
      expect(c.htu).toBe(`${t.rs.origin}/mcp`);
      expect(typeof c.iat).toBe('number');
      expect(c.ath).toBe(createHash('sha256').update('dpop-bound-token-0123').digest('base64url'));
      expect(sent[i]!.headers.authorization).toBe('DPoP dpop-bound-token-0123');
      const header = decodeProtectedHeader(proofs[i]!);
      expect(header.typ).toBe('dpop+jwt');
      expect(header.alg).toBe('ES256');
      expect(Object.keys(header.jwk ?? {}).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    }
  });

  it('a nonce a resource server hands out on a 200 goes into the next proof, with no refusal first (it used to be dropped)', async () => {
    await using t = await setup({
      algs: ['ES256'],
      token: (_req, res) => dpopToken(res),
      // Every 200 names the nonce the next proof must carry; a proof without it is refused.
      mcp: (req, res, count) => {
        const expected = count === 0 ? undefined : `rotated-${count - 1}`;
        const nonce = decodeJwt(String(req.headers.dpop)).nonce;
        if (nonce !== expected)
          return res
            .writeHead(401, {
              'www-authenticate': 'DPoP error="use_dpop_nonce"',
              'dpop-nonce': String(expected),
            })
            .end();
        const message = JSON.parse(req.body) as { id: number };
        json(
          res,
          200,
          { jsonrpc: '2.0', id: message.id, result: {} },
          {
            'dpop-nonce': `rotated-${count}`,
          },
        );
      },
    });
    await t.ping(1);
    await t.ping(2);
    await t.ping(3);
    const withToken = t.mcpRequests().filter((r) => r.headers.authorization);
    expect(withToken.map((r) => decodeJwt(String(r.headers.dpop)).nonce)).toEqual([
      undefined,
      'rotated-0',
      'rotated-1',
    ]);
    expect(t.replies).toHaveLength(3);
  });

  it('a nonce a token endpoint hands out on a 200 goes into the proof of the next token request', async () => {
    let n = 0;
    await using t = await setup({
      algs: ['ES256'],
      // expires_in 30 s, within the 60 s refresh skew: each request renews the token first.
      token: (_req, res) =>
        json(
          res,
          200,
          { access_token: `dpop-bound-token-${n}`, token_type: 'DPoP', expires_in: 30 },
          { 'dpop-nonce': `token-nonce-${n++}` },
        ),
    });
    await t.ping(1);
    await t.ping(2);
    const proofs = t.tokenRequests().map((r) => decodeJwt(String(r.headers.dpop)).nonce);
    expect(proofs.slice(0, 3)).toEqual([undefined, 'token-nonce-0', 'token-nonce-1']);
  });

  it.each([
    ['Infinity (1e400)', '1e400'],
    ['negative', '-30'],
    ['a word', '"soon"'],
    ['an object', '{"s":1}'],
  ])(
    'an expires_in that is %s neither crashes nor makes the token immortal',
    async (_what, raw) => {
      await using t = await setup({
        algs: ['ES256'],
        token: (_req, res) =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              `{"access_token":"dpop-bound-token-0123","token_type":"DPoP","expires_in":${raw}}`,
            ),
      });
      await t.ping(1);
      await t.ping(2);
      // Treated as absent: one token, used until refused; nothing stored that never expires.
      expect(t.tokenRequests()).toHaveLength(1);
      expect(t.replies).toHaveLength(2);
      const stored = (await t.auth.tokens())!;
      expect(stored.expires_at === undefined || Number.isFinite(stored.expires_at)).toBe(true);
    },
  );
});

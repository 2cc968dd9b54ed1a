import { McpClient } from '@mcpkit/client';
import { insufficientScope } from '@mcpkit/gateway';
import {
  AuthorizationServerUnavailableError,
  InvalidTokenError,
  listenHttp,
  ResourceServer,
} from '@mcpkit/gateway/node';
import { McpServer } from '@mcpkit/server';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { challengeParams, startKeyIssuer, startOAuthGateway } from './oauth-support.js';

/**
 * The gateway as an OAuth resource server, against a JWT issuer of our own on 127.0.0.1
 * (real keys, a real JWKS over HTTP): what it accepts, what it refuses and how it says so.
 */
const STATIC = 'static-token-for-one-user-0123456789';
let issuer: Awaited<ReturnType<typeof startKeyIssuer>>;
let gw: Awaited<ReturnType<typeof startOAuthGateway>>;
let base: string;

beforeAll(async () => {
  issuer = await startKeyIssuer();
  gw = await startOAuthGateway({
    token: STATIC,
    oauth: {
      issuers: [issuer.issuer],
      scopes: ['mcp:tools'],
      endpointScopes: { 'notes-only': ['notes:read'] },
      // Every unknown kid refetches at once: the rotation test does not wait out a cooldown.
      jwksRefetchCooldownMs: 0,
    },
  });
  base = gw.listener.url.origin;
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await issuer?.close();
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 't', version: '0' },
  },
});

function post(path: string, token?: string) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    },
    body: initialize,
  });
}

async function refusedWith(path: string, token: string | undefined) {
  const res = await post(path, token);
  await res.body?.cancel();
  return { status: res.status, params: challengeParams(res.headers.get('www-authenticate')) };
}

describe('Protected Resource Metadata (RFC 9728)', () => {
  it('is served without a token for /mcp, each endpoint and the root, naming the issuer and scopes', async () => {
    for (const [path, resource, scopes] of [
      ['/.well-known/oauth-protected-resource/mcp', `${base}/mcp`, ['mcp:tools']],
      ['/.well-known/oauth-protected-resource', `${base}/mcp`, ['mcp:tools']],
      [
        '/.well-known/oauth-protected-resource/mcp/notes-only',
        `${base}/mcp/notes-only`,
        ['notes:read'],
      ],
    ] as const) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      const doc = (await res.json()) as Record<string, unknown>;
      expect(doc.resource).toBe(resource);
      expect(doc.authorization_servers).toEqual([issuer.issuer]);
      expect(doc.scopes_supported).toEqual(scopes);
    }
  });

  it('is 404 for an endpoint that does not exist', async () => {
    const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/nope`);
    expect(res.status).toBe(404);
  });
});

describe('tokens the gateway accepts', () => {
  it('a JWT from the issuer for the endpoint with its scope: a client lists and calls', async () => {
    const token = await issuer.sign({ aud: `${base}/mcp/notes-only`, scope: 'notes:read' });
    const client = new McpClient({ name: 'jwt', eraCache: false });
    await client.connect(
      new StreamableHttpTransport({
        url: `${base}/mcp/notes-only`,
        name: 'jwt',
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    try {
      expect((await client.listTools()).map((t) => t.name)).toContain('notes__read_note');
      const result = await client.callTool({ name: 'notes__read_note', arguments: { id: 'x' } });
      expect(result.content[0]).toEqual({ type: 'text', text: 'notes read_note {"id":"x"}' });
    } finally {
      await client.close();
    }
  });

  it('the static token still lets its one user in beside OAuth', async () => {
    const res = await post('/mcp', STATIC);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it('scp as an array counts as the scopes', async () => {
    const token = await issuer.sign({ aud: `${base}/mcp`, scp: ['mcp:tools'] });
    const res = await post('/mcp', token);
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe('tokens the gateway refuses, with the challenge that says why', () => {
  it('no token: 401 with the endpoint’s metadata URL and scope', async () => {
    const { status, params } = await refusedWith('/mcp/notes-only', undefined);
    expect(status).toBe(401);
    expect(params).toEqual({
      scope: 'notes:read',
      resource_metadata: `${base}/.well-known/oauth-protected-resource/mcp/notes-only`,
    });
  });

  it('a token for another audience (another endpoint of the same gateway) is 401 invalid_token', async () => {
    const token = await issuer.sign({ aud: `${base}/mcp`, scope: 'notes:read mcp:tools' });
    const { status, params } = await refusedWith('/mcp/notes-only', token);
    expect(status).toBe(401);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toContain('another resource');
    expect(params.resource_metadata).toBe(
      `${base}/.well-known/oauth-protected-resource/mcp/notes-only`,
    );
  });

  it('an expired token is 401 invalid_token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await issuer.sign({ aud: `${base}/mcp`, scope: 'mcp:tools', exp: now - 3600 });
    const { status, params } = await refusedWith('/mcp', token);
    expect(status).toBe(401);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toBe('the token has expired');
  });

  it('a token from an issuer the gateway does not trust is 401 invalid_token', async () => {
    const other = await startKeyIssuer();
    try {
      const token = await other.sign({ aud: `${base}/mcp`, scope: 'mcp:tools' });
      const { status, params } = await refusedWith('/mcp', token);
      expect(status).toBe(401);
      expect(params.error).toBe('invalid_token');
      expect(params.error_description).toContain('issuer');
      // The trusted issuer's name on another issuer's key: no key of the trusted one fits.
      const forged = await other.sign({
        iss: issuer.issuer,
        aud: `${base}/mcp`,
        scope: 'mcp:tools',
      });
      expect((await refusedWith('/mcp', forged)).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('a token whose signature was tampered with (a claim changed after signing) is 401 invalid_token', async () => {
    const token = await issuer.sign({ aud: `${base}/mcp`, scope: 'mcp:tools', sub: 'ada' });
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const changed = Buffer.from(JSON.stringify({ ...claims, sub: 'root' })).toString('base64url');
    const { status, params } = await refusedWith('/mcp', `${h}.${changed}.${s}`);
    expect(status).toBe(401);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toContain('signature');
  });

  it('alg none and HS256 (a public key used as an HMAC secret) are 401 invalid_token', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const claims = b64({
      iss: issuer.issuer,
      aud: `${base}/mcp`,
      scope: 'mcp:tools',
      exp: now + 60,
    });
    for (const alg of ['none', 'HS256']) {
      const { status, params } = await refusedWith('/mcp', `${b64({ alg })}.${claims}.c2ln`);
      expect(status, alg).toBe(401);
      expect(params.error_description, alg).toContain('algorithm');
    }
  });

  it('a key rotated away: the new key is fetched on its first token, then the old key’s tokens are 401', async () => {
    const oldKey = issuer.currentKey();
    const before = await issuer.sign({ aud: `${base}/mcp`, scope: 'mcp:tools' }, oldKey);
    expect((await post('/mcp', before)).status).toBe(200);
    await issuer.rotate();
    const hits = issuer.jwksHits;
    const fresh = await issuer.sign({ aud: `${base}/mcp`, scope: 'mcp:tools' });
    expect((await post('/mcp', fresh)).status).toBe(200);
    expect(issuer.jwksHits).toBe(hits + 1);
    const { status, params } = await refusedWith('/mcp', before);
    expect(status).toBe(401);
    expect(params.error).toBe('invalid_token');
    expect(params.error_description).toContain('does not publish');
  });

  it('a token without the endpoint’s scope is 403 insufficient_scope naming the scope', async () => {
    const token = await issuer.sign({ aud: `${base}/mcp/notes-only`, scope: 'mcp:tools' });
    const res = await post('/mcp/notes-only', token);
    await res.body?.cancel();
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      insufficientScope(['notes:read'], {
        resourceMetadata: `${base}/.well-known/oauth-protected-resource/mcp/notes-only`,
      }),
    );
    expect(challengeParams(res.headers.get('www-authenticate'))).toEqual({
      error: 'insufficient_scope',
      scope: 'notes:read',
      resource_metadata: `${base}/.well-known/oauth-protected-resource/mcp/notes-only`,
    });
  });

  it('a DPoP-bound token (cnf) presented as a bearer token is 401', async () => {
    const token = await issuer.sign({
      aud: `${base}/mcp`,
      scope: 'mcp:tools',
      cnf: { jkt: 'thumbprint' },
    });
    const { status, params } = await refusedWith('/mcp', token);
    expect(status).toBe(401);
    expect(params.error_description).toContain('sender-constrained');
  });
});

describe('a call the access policy refuses, alone on its POST (listenHttp)', () => {
  it('403 insufficient_scope asks for the token’s scopes and the one that allows the call, with the metadata URL', async () => {
    const own = await startOAuthGateway(
      { oauth: { issuers: [issuer.issuer], scopes: ['mcp:tools'] } },
      {
        rules: [
          { scope: ['mcp:tools'], servers: ['notes'], tools: ['read_*'] },
          { scope: ['notes:write'], servers: ['notes'], tools: ['write'] },
        ],
      },
    );
    const client = new McpClient({ eraCache: false });
    try {
      const url = own.listener.url;
      const token = await issuer.sign({ aud: url.href, scope: 'mcp:tools' });
      await client.connect(
        new StreamableHttpTransport({ url, headers: { authorization: `Bearer ${token}` } }),
      );
      expect((await client.listTools({ fresh: true })).map((t) => t.name)).toEqual([
        'notes__read_note',
      ]);
      const refused = (await client
        .callTool({ name: 'notes__write', arguments: {} })
        .catch((e: unknown) => e)) as { status?: number; wwwAuthenticate?: string };
      expect(refused.status).toBe(403);
      // A client that asks for exactly these keeps mcp:tools, which every request needs.
      expect(challengeParams(refused.wwwAuthenticate ?? null)).toEqual({
        error: 'insufficient_scope',
        error_description: 'this client may not call it',
        scope: 'mcp:tools notes:write',
        resource_metadata: `${url.origin}/.well-known/oauth-protected-resource/mcp`,
      });
    } finally {
      await client.close();
      await own.close();
    }
  });
});

describe('the keys, fetched with bounds', () => {
  it('a flood of unknown kids refetches the JWKS at most once per cooldown', async () => {
    const own = await startKeyIssuer();
    try {
      const rs = new ResourceServer({ issuers: [own.issuer] });
      const good = await own.sign({ aud: 'urn:r' });
      await rs.verify(good, 'urn:r');
      await own.rotate();
      const errors = await Promise.all(
        Array.from({ length: 20 }, async () =>
          rs.verify(await own.sign({ aud: 'urn:r' }), 'urn:r').catch((e: unknown) => e),
        ),
      );
      expect(errors.every((e) => InvalidTokenError.isInstance(e))).toBe(true);
      expect(own.jwksHits).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('a JWKS that never answers is 503 after the fetch timeout, not a hung request', async () => {
    const held: import('node:http').ServerResponse[] = [];
    const slow = await startKeyIssuer({
      jwks: (_req, res) => {
        held.push(res);
        return true;
      },
    });
    const slowGw = await startOAuthGateway({
      oauth: { issuers: [slow.issuer], fetchTimeoutMs: 200 },
    });
    try {
      const token = await slow.sign({ aud: `${slowGw.listener.url.origin}/mcp` });
      const res = await fetch(slowGw.listener.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
        },
        body: initialize,
      });
      await res.body?.cancel();
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
    } finally {
      for (const r of held) r.destroy();
      await slowGw.close();
      await slow.close();
    }
  });

  it('a JWKS over the size limit is refused as unavailable, not read whole', async () => {
    const big = await startKeyIssuer({
      jwks: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"keys":[${'"x",'.repeat(100_000)}"x"]}`);
        return true;
      },
    });
    try {
      const rs = new ResourceServer({ issuers: [big.issuer], maxDocumentBytes: 64 * 1024 });
      const error = await rs.verify(await big.sign({ aud: 'urn:r' }), 'urn:r').catch((e) => e);
      expect(AuthorizationServerUnavailableError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('limit');
    } finally {
      await big.close();
    }
  });
});

/** A server whose `whoami` answers with the `ctx.authInfo` the listener verified. */
function whoamiServer() {
  const server = new McpServer({ info: { name: 'who', version: '1.0.0' } });
  server.registerTool(
    'whoami',
    { description: 'Says who the listener verified', inputSchema: { type: 'object' } },
    async (_args, ctx) => ({
      content: [{ type: 'text', text: JSON.stringify(ctx.authInfo ?? null) }],
    }),
  );
  return server;
}

/** `whoami` through `url` with `token`: what the handler's `ctx.authInfo` was. */
async function whoami(url: URL, token: string): Promise<Record<string, unknown>> {
  const client = new McpClient({ name: 'who', eraCache: false });
  await client.connect(
    new StreamableHttpTransport({
      url,
      name: 'who',
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  try {
    const result = await client.callTool({ name: 'whoami' });
    return JSON.parse((result.content[0] as { text: string }).text);
  } finally {
    await client.close();
  }
}

describe('what a verified JWT tells the handlers', () => {
  it('the static token’s holder: kind static-token with its configured subject (static-token by default)', async () => {
    const server = whoamiServer();
    const face = { server, health: () => ({ status: 'ok', servers: [] }) } as never;
    const plain = await listenHttp(face, { port: 0, token: STATIC });
    const named = await listenHttp(face, { port: 0, token: STATIC, tokenSubject: 'ci-bot' });
    try {
      expect(await whoami(plain.url, STATIC)).toMatchObject({
        kind: 'static-token',
        subject: 'static-token',
        scopes: [],
      });
      expect(await whoami(named.url, STATIC)).toMatchObject({
        kind: 'static-token',
        subject: 'ci-bot',
      });
    } finally {
      await plain.close();
      await named.close();
      await server.close();
    }
  });

  it('a verified JWT is kept for its next requests, and refused once it expires', async () => {
    const server = whoamiServer();
    const listener = await listenHttp(
      { server, health: () => ({ status: 'ok', servers: [] }) } as never,
      { port: 0, oauth: { issuers: [issuer.issuer], clockToleranceSec: 0 } },
    );
    try {
      const exp = Math.floor(Date.now() / 1000) + 3;
      const token = await issuer.sign({ aud: listener.url.href, sub: 'brief', exp });
      expect(await whoami(listener.url, token)).toMatchObject({ subject: 'brief', expiresAt: exp });
      // Kept (verified once), yet never past its exp: polled until the gateway refuses it.
      let status = 200;
      while (status !== 401) {
        const res = await fetch(listener.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
        await res.body?.cancel();
        status = res.status;
        if (status !== 401) await new Promise((r) => setTimeout(r, 100));
      }
      const refusedAt = Date.now();
      expect(refusedAt).toBeGreaterThanOrEqual(exp * 1000);
    } finally {
      await listener.close();
      await server.close();
    }
  });

  it('ctx.authInfo: kind jwt, sub, client_id, scopes, exp and the claims, per request', async () => {
    const server = whoamiServer();
    const listener = await listenHttp(
      { server, health: () => ({ status: 'ok', servers: [] }) } as never,
      { port: 0, oauth: { issuers: [issuer.issuer] } },
    );
    try {
      const exp = Math.floor(Date.now() / 1000) + 300;
      const token = await issuer.sign({
        aud: listener.url.href,
        sub: 'grace',
        azp: 'cli-app',
        scope: 'mcp:tools notes:read',
        groups: ['team-a'],
        exp,
      });
      const client = new McpClient({ name: 'who', eraCache: false });
      await client.connect(
        new StreamableHttpTransport({
          url: listener.url,
          name: 'who',
          headers: { authorization: `Bearer ${token}` },
        }),
      );
      try {
        const result = await client.callTool({ name: 'whoami' });
        const info = JSON.parse((result.content[0] as { text: string }).text);
        expect(info).toMatchObject({
          kind: 'jwt',
          subject: 'grace',
          clientId: 'cli-app',
          scopes: ['mcp:tools', 'notes:read'],
          expiresAt: exp,
          claims: { groups: ['team-a'], iss: issuer.issuer },
          token,
        });
      } finally {
        await client.close();
      }
    } finally {
      await listener.close();
      await server.close();
    }
  });
});

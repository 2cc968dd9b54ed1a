// Enterprise-managed authorization (XAA) fixtures, in plain JavaScript so that a shell can
// start them too (`node tests/support/xaa-fixtures-run.mjs`):
// - an identity provider: oidc-provider (certified) with the RFC 8693 token-exchange grant
//   added (`registerGrantType`), issuing ID-JAGs signed with its own key;
// - the MCP server's authorization server: a small real HTTP server taking the RFC 7523
//   JWT bearer grant, verifying the ID-JAG against the IdP's JWKS (typ, iss, aud,
//   resource, client_id, exp) and issuing opaque access tokens;
// - an MCP server built on @mcpkit/server over Streamable HTTP, serving protected-resource
//   metadata and refusing requests without a live token for its resource.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import Provider from 'oidc-provider';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
export const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

function listen(server) {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address().port)),
  );
}

function closeServer(server) {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function readForm(req, limit = 64 * 1024) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
      if (body.length > limit) reject(new Error('body too large'));
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

/**
 * The enterprise IdP. `clientId` is the CLI's client there (public, loopback redirects on
 * any port). `policy` decides each exchange: the tests change it to make the IdP refuse
 * (`refuse`), mint a grant for the wrong audience (`audience`) or one already expired
 * (`ttlSeconds` < 0), or publish a key it does not sign with (`foreignJwks`). `exchanges`
 * lists every exchange request's parameters.
 */
export async function startXaaIdentityProvider(options = {}) {
  const clientId = options.clientId ?? 'mcpkit-cli';
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [privateJwk] },
    features: { devInteractions: { enabled: true } },
    scopes: ['openid', 'email', 'offline_access'],
    pkce: { required: () => true },
    ttl: { IdToken: options.idTokenTtlSeconds ?? 3600 },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@example.test` }),
    }),
    cookies: { keys: ['mcpkit-xaa-test-cookie-key'] },
  });
  provider.proxy = false;
  /** @type {{ refuse: string | undefined, audience: string | undefined, ttlSeconds: number, foreignJwks: boolean }} */
  const policy = { refuse: undefined, audience: undefined, ttlSeconds: 300, foreignJwks: false };
  // An injected fault (no real IdP can be asked for it): with `foreignJwks`, the JWKS
  // endpoint publishes another RSA key under the signing key's kid, so the ID tokens this
  // IdP signs no longer verify against the keys it publishes. Turn it on only for a sign-in
  // that must be refused: a verifier that fetches the keys meanwhile (this IdP's exchange,
  // the authorization server) caches the wrong key for minutes.
  const foreign = await generateKeyPair('RS256', { extractable: true });
  const foreignJwk = { ...(await exportJWK(foreign.publicKey)), kid, alg: 'RS256', use: 'sig' };
  const exchanges = [];
  const idTokenKeys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx) => {
      const p = ctx.oidc.params;
      exchanges.push({
        audience: p.audience,
        resource: p.resource,
        requested_token_type: p.requested_token_type,
        subject_token_type: p.subject_token_type,
        scope: p.scope,
        client_id: ctx.oidc.client.clientId,
      });
      const refuse = (error, description) => {
        ctx.status = 400;
        ctx.body = { error, error_description: description };
      };
      if (p.requested_token_type !== ID_JAG)
        return refuse('invalid_request', 'only ID-JAGs are issued here');
      if (p.subject_token_type !== ID_TOKEN || !p.subject_token)
        return refuse('invalid_request', 'the subject token must be an ID token');
      if (!p.audience || !p.resource)
        return refuse('invalid_request', 'audience and resource are required');
      let subject;
      try {
        const { payload } = await jwtVerify(p.subject_token, idTokenKeys, {
          issuer,
          audience: ctx.oidc.client.clientId,
        });
        subject = payload.sub;
      } catch (error) {
        return refuse(
          'invalid_grant',
          `the subject token is not valid: ${error.code ?? error.message}`,
        );
      }
      if (policy.refuse) return refuse('access_denied', policy.refuse);
      const now = Math.floor(Date.now() / 1000);
      const jag = await new SignJWT({
        resource: p.resource,
        client_id: options.asClientId ?? 'mcpkit-at-as',
        ...(p.scope ? { scope: p.scope } : {}),
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'oauth-id-jag+jwt' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(policy.audience ?? p.audience)
        .setJti(randomUUID())
        .setIssuedAt(now - (policy.ttlSeconds < 0 ? 600 : 0))
        .setExpirationTime(now + policy.ttlSeconds)
        .sign(privateKey);
      ctx.body = {
        issued_token_type: ID_JAG,
        access_token: jag,
        token_type: 'N_A',
        expires_in: policy.ttlSeconds,
        ...(p.scope ? { scope: p.scope } : {}),
      };
    },
    [
      'audience',
      'resource',
      'requested_token_type',
      'subject_token',
      'subject_token_type',
      'scope',
    ],
  );
  const serve = provider.callback();
  server.on('request', (req, res) => {
    if (policy.foreignJwks && req.method === 'GET' && req.url === '/jwks')
      return sendJson(res, 200, { keys: [foreignJwk] });
    return serve(req, res);
  });
  return {
    issuer,
    clientId,
    provider,
    policy,
    exchanges,
    jwks: { keys: [publicJwk] },
    close: () => closeServer(server),
  };
}

/**
 * The MCP server's authorization server: RFC 8414 metadata and a token endpoint that
 * takes only the JWT bearer grant with an ID-JAG from `idpIssuer`. `tokens` maps each
 * access token it issued to what it stands for; `tokenTtlSeconds` may be changed.
 */
export async function startJwtBearerAuthorizationServer({
  idpIssuer,
  clientId = 'mcpkit-at-as',
  resource,
}) {
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const keys = createRemoteJWKSet(new URL(`${idpIssuer}/jwks`));
  const tokens = new Map();
  const state = { resource, tokenTtlSeconds: 3600, grants: [], refusals: [] };
  server.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return sendJson(res, 200, {
        issuer,
        token_endpoint: `${issuer}/token`,
        grant_types_supported: [JWT_BEARER],
        token_endpoint_auth_methods_supported: ['none'],
        response_types_supported: [],
      });
    }
    if (req.method !== 'POST' || url.pathname !== '/token')
      return sendJson(res, 404, { error: 'not_found' });
    const form = await readForm(req);
    const refuse = (error, description) => {
      state.refusals.push(description);
      return sendJson(res, 400, { error, error_description: description });
    };
    if (form.get('grant_type') !== JWT_BEARER)
      return refuse('unsupported_grant_type', 'only the JWT bearer grant');
    if (form.get('client_id') !== clientId) return refuse('invalid_client', 'unknown client');
    let payload;
    try {
      const verified = await jwtVerify(form.get('assertion') ?? '', keys, {
        issuer: idpIssuer,
        audience: issuer,
        typ: 'oauth-id-jag+jwt',
      });
      payload = verified.payload;
    } catch (error) {
      return refuse(
        'invalid_grant',
        `the ID-JAG is not valid: ${error.code ?? 'ERR'} ${error.message}`,
      );
    }
    if (payload.resource !== state.resource)
      return refuse('invalid_grant', 'the ID-JAG is for another resource');
    if (payload.client_id !== form.get('client_id'))
      return refuse('invalid_grant', 'the ID-JAG was issued to another client');
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, {
      sub: payload.sub,
      resource: payload.resource,
      clientId,
      exp: Date.now() + state.tokenTtlSeconds * 1000,
    });
    state.grants.push(payload.sub);
    return sendJson(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: state.tokenTtlSeconds,
      ...(typeof payload.scope === 'string' ? { scope: payload.scope } : {}),
    });
  });
  return {
    issuer,
    clientId,
    tokens,
    state,
    /** The live token's record for `resource`, else undefined. */
    check(token, forResource) {
      const t = token ? tokens.get(token) : undefined;
      return t && t.exp > Date.now() && t.resource === forResource ? t : undefined;
    },
    close: () => closeServer(server),
  };
}

/**
 * An MCP server (`@mcpkit/server`, Streamable HTTP) whose one tool says who called: every
 * request needs a live access token of `as` for this server; others get 401 with a
 * challenge pointing at the protected-resource metadata.
 */
export async function startProtectedMcpServer(as) {
  const mcp = new McpServer({ info: { name: 'xaa-protected', version: '1.0.0' } });
  mcp.registerTool(
    'whoami',
    { description: 'Says which user the access token stands for', inputSchema: { type: 'object' } },
    async (_args, ctx) => ({
      content: [{ type: 'text', text: `you are ${ctx.authInfo?.subject ?? 'nobody'}` }],
    }),
  );
  const seen = new WeakMap();
  let base = '';
  const listener = await listenStreamableHttp(mcp, {
    intercept: (req, res, pathname) => {
      const prm = '/.well-known/oauth-protected-resource/mcp';
      if (pathname === prm) {
        sendJson(res, 200, { resource: `${base}/mcp`, authorization_servers: [as.issuer] });
        return true;
      }
      if (pathname !== '/mcp') return false;
      const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const record = as.check(token, `${base}/mcp`);
      if (!record) {
        res.writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${base}${prm}"`,
          'content-type': 'application/json',
        });
        res.end('{"error":"unauthorized"}');
        return true;
      }
      seen.set(req, record);
      return false;
    },
    authInfo: (req) => {
      const r = seen.get(req);
      return r
        ? {
            kind: 'opaque',
            subject: r.sub,
            clientId: r.clientId,
            scopes: [],
            expiresAt: r.exp,
            claims: {},
            token: '',
          }
        : undefined;
    },
  });
  base = listener.url.origin;
  as.state.resource = listener.url.href;
  return {
    url: listener.url.href,
    close: async () => {
      await listener.close();
      await mcp.close();
    },
  };
}

/** The three together: IdP, authorization server, MCP server. */
export async function startXaaStack(options = {}) {
  const idp = await startXaaIdentityProvider(options);
  const as = await startJwtBearerAuthorizationServer({ idpIssuer: idp.issuer });
  const mcp = await startProtectedMcpServer(as);
  return {
    idp,
    as,
    mcp,
    async close() {
      await mcp.close();
      await as.close();
      await idp.close();
    },
  };
}

/**
 * A hostile MCP server and authorization server in one, on node:http at 127.0.0.1: it
 * answers every MCP request with 401 and serves protected-resource and authorization-
 * server metadata that a test fills with whatever it wants to attack the client with
 * (endpoints that are not URLs, `file:` and `javascript:` URLs, user info, plain http to
 * another host), redirects to such places, registration and token endpoints that fail,
 * hang or never stop sending, and answers that echo secrets back.
 *
 * Library use: `await startOAuthHostileServer(options)`.
 * Process use (for CLI tests): `node oauth-hostile-server.mjs '<options as JSON>'` prints
 * one line `{"url": "...", "base": "..."}` and exits when its stdin closes.
 *
 * In metadata values, `{base}` stands for the server's own origin.
 */
import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:http';

/** What an endless body sends at most: far above any limit under test, far below harm. */
export const ENDLESS_CAP_BYTES = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

/**
 * @typedef {'ok' | 'error-500' | 'hang' | 'endless' | 'endless-error' | 'echo-secrets'} Behaviour
 * @typedef {object} HostileOptions
 * @property {string} [challenge] the `resource_metadata` of the 401 challenge (default: the real one)
 * @property {unknown} [authorizationServers] the protected-resource metadata's `authorization_servers`
 * @property {Record<string, unknown>} [metadata] fields that override the authorization-server metadata
 * @property {Record<string, string>} [redirects] path → Location answered with 302 to a GET
 * @property {Behaviour} [register] how POST /register answers (default ok)
 * @property {Behaviour} [token] how POST /token answers (default ok)
 * @property {string[]} [endless] GET paths answered 200 with a JSON document that never ends
 * @property {string[]} [huge] GET paths answered 200 declaring a 1 GiB body (then endless)
 * @property {string} [accessToken] the access token /token issues (default a fixed one)
 */

/**
 * @param {HostileOptions} options
 */
export async function startOAuthHostileServer(options = {}) {
  /** @type {Array<{ method: string, path: string, body: string }>} */
  const seen = [];
  /** Bytes written per path for endless bodies, and whether the client hung up. */
  const streams = new Map();
  const events = new EventEmitter();
  const sub = (value) =>
    typeof value === 'string'
      ? value.replaceAll('{base}', base)
      : Array.isArray(value)
        ? value.map(sub)
        : value;
  let base = '';
  let tokens = 0;

  const json = (res, body, status = 200, headers = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));

  /** Sends `{"x":"aaaa…` until the client hangs up or the cap is reached. */
  function endless(path, res, status, headers = {}) {
    const record = { sent: 0, hungUp: false, capped: false };
    streams.set(path, record);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.write('{"x":"');
    res.on('close', () => {
      if (!res.writableFinished) record.hungUp = true;
      events.emit('stream-closed', path);
    });
    const pump = () => {
      while (!res.destroyed) {
        if (record.sent >= ENDLESS_CAP_BYTES) {
          record.capped = true;
          res.end('"}');
          return;
        }
        record.sent += CHUNK.length;
        if (!res.write(CHUNK)) return;
      }
    };
    res.on('drain', pump);
    pump();
  }

  function answer(behaviour, path, res, ok) {
    switch (behaviour ?? 'ok') {
      case 'ok':
        return ok();
      case 'error-500':
        return json(res, { error: 'server_error', error_description: 'registration is down' }, 500);
      case 'hang':
        return; // never answers; the socket is destroyed when the server closes
      case 'endless':
        return endless(path, res, 200);
      case 'endless-error':
        return endless(path, res, 500);
      case 'echo-secrets':
        return undefined; // handled by the caller, which knows the request
    }
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = url.pathname;
    seen.push({ method: req.method ?? '', path, body });
    events.emit('request', { method: req.method, path, body });

    if (req.method === 'GET' && options.redirects?.[path] !== undefined) {
      res.writeHead(302, { location: options.redirects[path] }).end();
      return;
    }
    if (req.method === 'GET' && options.huge?.includes(path))
      return endless(path, res, 200, { 'content-length': String(2 ** 30) });
    if (req.method === 'GET' && options.endless?.includes(path)) return endless(path, res, 200);

    if (path === '/mcp') {
      const metadataUrl = options.challenge ?? `${base}/.well-known/oauth-protected-resource/mcp`;
      // The header carries the value as is: a quote in it ends the parameter, as a server
      // that does not escape would send it.
      res
        .writeHead(401, {
          'content-type': 'application/json',
          'www-authenticate': `Bearer resource_metadata="${metadataUrl}"`,
        })
        .end('{"error":"unauthorized"}');
      return;
    }
    if (path === '/.well-known/oauth-protected-resource/mcp')
      return json(res, {
        resource: `${base}/mcp`,
        authorization_servers: sub(options.authorizationServers ?? [base]),
      });
    if (path === '/.well-known/oauth-authorization-server') {
      const doc = {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
      };
      for (const [k, v] of Object.entries(options.metadata ?? {})) doc[k] = sub(v);
      return json(res, doc);
    }
    if (path === '/register' && req.method === 'POST') {
      if (options.register === 'echo-secrets') {
        return json(
          res,
          {
            error: 'invalid_client_metadata',
            error_description: `rejected ${body} with client_secret=hostile-echo-secret-1`,
          },
          400,
        );
      }
      return answer(options.register, path, res, () =>
        json(res, {
          client_id: 'hostile-client',
          client_secret: 'hostile-client-secret-0123456789',
          token_endpoint_auth_method: 'client_secret_post',
          redirect_uris: JSON.parse(body).redirect_uris,
        }),
      );
    }
    if (path === '/authorize' && req.method === 'GET') {
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', 'hostile-code-0123456789');
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (path === '/token' && req.method === 'POST') {
      if (options.token === 'echo-secrets') {
        // Hands back what it was sent: a client that quotes this leaks its secrets.
        return json(
          res,
          { error: 'invalid_grant', error_description: `bad request: ${body}` },
          400,
        );
      }
      return answer(options.token, path, res, () => {
        tokens++;
        json(res, {
          access_token: options.accessToken ?? `hostile-access-token-${tokens}-0123456789`,
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: `hostile-refresh-token-${tokens}-0123456789`,
        });
      });
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  base = `http://127.0.0.1:${server.address().port}`;

  return {
    base,
    /** The MCP endpoint (always 401). */
    url: `${base}/mcp`,
    /** Every request, in order: method, path, body. */
    seen,
    /** `request` ({ method, path, body }) and `stream-closed` (path) events. */
    events,
    /** How much of an endless body was sent, and whether the client hung up first. */
    stream: (path) => streams.get(path),
    /** Resolves at the next request for `path`. */
    nextRequest: async (path) => {
      for (;;) {
        const [request] = await once(events, 'request');
        if (request.path === path) return request;
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
}

// As a process: options from argv, the URL on stdout, gone when stdin closes.
if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startOAuthHostileServer(JSON.parse(process.argv[2] ?? '{}'));
  process.stdout.write(`${JSON.stringify({ url: server.url, base: server.base })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close());
  process.stdin.on('close', () => void server.close());
}

import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  discover,
  discoverAuthorizationServer,
  FileTokenStore,
  HeadersHelperAuth,
  HeadersHelperError,
  KeychainTokenStore,
  LoopbackAuthorization,
  NeedsAuthError,
  OAuthProvider,
  SecretSet,
} from './index.js';
import { parseBearerChallenge } from './www-authenticate.js';

/** A real HTTP server on 127.0.0.1 that records the paths asked for. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    seen,
    [Symbol.asyncDispose]: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A fresh directory under the temp dir, removed after its test (passed or failed). */
const scratch: string[] = [];
async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const json = (res: ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('WWW-Authenticate', () => {
  it('reads the Bearer challenge, quoted and bare, among other schemes', () => {
    expect(
      parseBearerChallenge(
        'Basic realm="x", Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      scope: 'files:read files:write',
      resourceMetadata: 'https://h/.well-known/oauth-protected-resource/mcp',
    });
    expect(parseBearerChallenge('Bearer realm=api')).toEqual({ realm: 'api' });
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
  });
});

describe('redaction', () => {
  it('hides tokens, codes, secrets and JWTs wherever they appear', () => {
    const secrets = new SecretSet();
    secrets.remember('s3cr3t-value-123');
    const text = secrets.redact(
      'POST /token code=abc123&code_verifier=v&refresh_token=r1 Authorization: Bearer tok.en {"access_token":"at-1"} eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.sig and s3cr3t-value-123',
    );
    for (const secret of [
      'abc123',
      'r1 ',
      'tok.en',
      'at-1',
      'eyJhbGciOiJFUzI1NiJ9',
      's3cr3t-value-123',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('code=[redacted]');
  });
});

describe('FileTokenStore', () => {
  it('writes atomically, mode 0600 in a 0700 directory, one file per server', async () => {
    const dir = path.join(await scratchDir('mcpkit-auth-'), 'auth');
    const store = new FileTokenStore(dir);
    const record = {
      issuer: 'https://as',
      issuers: { 'https://as': { tokens: { access_token: 'a', token_type: 'Bearer' } } },
    };
    await store.set('https://mcp.example/a', record);
    await store.set('https://mcp.example/b', { issuers: {} });
    expect(await store.get('https://mcp.example/a')).toEqual(record);
    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.json'))).toBe(true);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const f of files) expect((await stat(path.join(dir, f))).mode & 0o777).toBe(0o600);
    await store.delete('https://mcp.example/a');
    expect(await store.get('https://mcp.example/a')).toBeUndefined();
    expect(await readdir(dir)).toHaveLength(1);
  });
});

describe('FileTokenStore reading a damaged or hostile file', () => {
  async function storeWith(record: unknown) {
    const dir = path.join(await scratchDir('mcpkit-auth-'), 'auth');
    const store = new FileTokenStore(dir);
    const key = 'https://mcp.example/a';
    await store.set(key, { issuers: {} });
    await writeFile(store.fileFor(key), JSON.stringify({ key, record }));
    return { store, key };
  }
  const client = { client_id: 'c1', kind: 'dynamic', redirect_uris: ['http://127.0.0.1/cb'] };
  const tokens = { access_token: 'a', token_type: 'Bearer', expires_at: 1, scope: 's' };

  it('keeps a sound record whole', async () => {
    const record = { issuer: 'https://as', issuers: { 'https://as': { client, tokens } } };
    const { store, key } = await storeWith(record);
    expect(await store.get(key)).toEqual(record);
  });

  it('a record without its frame is none', async () => {
    for (const record of [null, 'x', [], { issuers: null }, { issuers: [] }, { issuer: 'i' }]) {
      const { store, key } = await storeWith(record);
      expect(await store.get(key), JSON.stringify(record)).toBeUndefined();
    }
  });

  it('drops what is damaged and keeps what is sound: the registration outlives a broken token', async () => {
    for (const bad of [
      { ...tokens, access_token: 5 },
      { ...tokens, access_token: '' },
      { ...tokens, token_type: null },
      { ...tokens, expires_at: 'tomorrow' },
      { ...tokens, refresh_token: {} },
      'a-token',
    ]) {
      const { store, key } = await storeWith({
        issuer: 7,
        issuers: { 'https://as': { client, tokens: bad }, 'https://other': 'junk' },
      });
      expect(await store.get(key), JSON.stringify(bad)).toEqual({
        issuers: { 'https://as': { client } },
      });
    }
    for (const bad of [
      { ...client, client_id: 1 },
      { ...client, kind: 'stolen' },
      { ...client, redirect_uris: 'http://x' },
      { ...client, redirect_uris: [1] },
    ]) {
      const { store, key } = await storeWith({
        issuers: { 'https://as': { client: bad, tokens } },
      });
      expect(await store.get(key), JSON.stringify(bad)).toEqual({
        issuers: { 'https://as': { tokens } },
      });
    }
  });

  it('an issuer named "__proto__" is dropped, not made the prototype of the issuers', async () => {
    const text = `{"issuers":{"__proto__":{"tokens":${JSON.stringify(tokens)}},"https://as":{}}}`;
    const { store, key } = await storeWith(JSON.parse(text));
    const record = await store.get(key);
    expect(Object.getPrototypeOf(record!.issuers)).toBe(Object.prototype);
    expect(Object.keys(record!.issuers)).toEqual(['https://as']);
  });

  it('a provider over a damaged store asks for a sign-in instead of failing on the shape', async () => {
    const { store, key } = await storeWith({
      issuer: 'https://as',
      issuers: { 'https://as': { tokens: { access_token: ['x'], token_type: 'Bearer' } } },
    });
    const auth = new OAuthProvider({ serverUrl: key, serverName: 'gh', store });
    expect(await auth.headers()).toEqual({});
    const error = await auth
      .onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer', url: key })
      .catch((e: unknown) => e);
    expect(NeedsAuthError.isInstance(error), String(error)).toBe(true);
  });
});

describe('KeychainTokenStore', () => {
  it('opens the OS keychain, or says clearly why it cannot', async () => {
    const opened = await KeychainTokenStore.open('mcpkit-test').catch((e: Error) => e);
    if (opened instanceof Error) expect(opened.message).toMatch(/keychain|keyring/i);
    else {
      await opened.set('k', { issuers: {} });
      expect(await opened.get('k')).toEqual({ issuers: {} });
      await opened.delete('k');
    }
  });
});

describe('discovery', () => {
  it('asks in the specified order: path-aware resource metadata, then the issuer with a path three ways', async () => {
    await using s = await serve((req, res) => {
      if (req.url === '/.well-known/oauth-protected-resource')
        return json(res, {
          resource: `${s.base}/mcp`,
          authorization_servers: [`${s.base}/tenant1`],
        });
      if (req.url === '/tenant1/.well-known/openid-configuration')
        return json(res, {
          issuer: `${s.base}/tenant1`,
          token_endpoint: `${s.base}/t`,
          authorization_endpoint: `${s.base}/a`,
        });
      res.writeHead(404).end();
    });
    const d = await discover(`${s.base}/mcp`, undefined);
    expect(d.metadata.token_endpoint).toBe(`${s.base}/t`);
    expect(d.resource).toBe(`${s.base}/mcp`);
    expect(s.seen).toEqual([
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-authorization-server/tenant1',
      'GET /.well-known/openid-configuration/tenant1',
      'GET /tenant1/.well-known/openid-configuration',
    ]);
  });

  it('refuses metadata whose resource is another server, before any authorization request', async () => {
    await using s = await serve((req, res) => {
      if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
        return json(res, {
          resource: 'https://elsewhere.example/mcp',
          authorization_servers: [s.base],
        });
      res.writeHead(404).end();
    });
    await expect(discover(`${s.base}/mcp`, undefined)).rejects.toThrow(
      /names resource "https:\/\/elsewhere.example\/mcp", which is not/,
    );
    expect(s.seen.some((l) => l.includes('authorization-server'))).toBe(false);
  });

  it('refuses authorization-server metadata that names another issuer', async () => {
    await using s = await serve((req, res) => {
      if (req.url === '/.well-known/oauth-authorization-server')
        return json(res, {
          issuer: 'https://attacker.example',
          token_endpoint: 'https://attacker.example/t',
        });
      res.writeHead(404).end();
    });
    await expect(discoverAuthorizationServer(s.base)).rejects.toThrow(
      /names issuer "https:\/\/attacker.example"/,
    );
  });

  it('2025-03-26 servers: metadata at the root, else /authorize, /token and /register', async () => {
    await using s = await serve((_req, res) => {
      res.writeHead(404).end();
    });
    const d = await discover(`${s.base}/mcp`, undefined);
    expect(d.fallback).toBe(true);
    expect(d.metadata).toMatchObject({
      authorization_endpoint: `${s.base}/authorize`,
      token_endpoint: `${s.base}/token`,
      registration_endpoint: `${s.base}/register`,
    });
  });
});

describe('OAuthProvider without a user', () => {
  it('a 401 it cannot fix is NeedsAuthError, naming the server (no host command)', async () => {
    const auth = new OAuthProvider({ serverUrl: 'http://127.0.0.1:9/mcp', serverName: 'gh' });
    const error = await auth
      .onUnauthorized({ status: 401, wwwAuthenticate: 'Bearer', url: 'http://127.0.0.1:9/mcp' })
      .catch((e: unknown) => e);
    expect(NeedsAuthError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      'server "gh": the server needs authorization; an interactive sign-in is needed to authorize',
    );
  });

  it('refuses an authorization server that does not advertise PKCE S256', async () => {
    await using s = await serve((req, res) => {
      if (req.url?.startsWith('/.well-known/oauth-protected-resource'))
        return json(res, { resource: `${s.base}/mcp`, authorization_servers: [s.base] });
      if (req.url === '/.well-known/oauth-authorization-server')
        return json(res, {
          issuer: s.base,
          authorization_endpoint: `${s.base}/authorize`,
          token_endpoint: `${s.base}/token`,
          code_challenge_methods_supported: ['plain'],
        });
      res.writeHead(404).end();
    });
    const auth = new OAuthProvider({
      serverUrl: `${s.base}/mcp`,
      interactive: {
        redirectUri: () => 'http://127.0.0.1:1/cb',
        authorize: async () => new URL('http://x'),
      },
    });
    await expect(
      auth.onUnauthorized({ status: 401, wwwAuthenticate: undefined, url: `${s.base}/mcp` }),
    ).rejects.toThrow(/does not advertise PKCE S256/);
    expect(s.seen.some((l) => l.includes('/authorize') || l.includes('/register'))).toBe(false);
  });
});

describe('LoopbackAuthorization', () => {
  it('listens on 127.0.0.1, shows a friendly page, and hands back the redirect', async () => {
    const loop = new LoopbackAuthorization({
      open: async (url) => {
        // Stands in for the browser: the authorization server redirects back at once.
        const u = new URL(url);
        const page = await fetch(`${u.searchParams.get('redirect_uri')}?code=c1&state=s1`);
        expect(await page.text()).toContain('You can close this tab');
      },
    });
    const redirect = await loop.redirectUri();
    expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const back = await loop.authorize(
      new URL(`https://as.example/authorize?redirect_uri=${encodeURIComponent(redirect)}`),
    );
    expect(back.searchParams.get('code')).toBe('c1');
  });

  it('gives up after its timeout with a clear error', async () => {
    const loop = new LoopbackAuthorization({ timeoutMs: 50, open: () => {} });
    await expect(loop.authorize(new URL('https://as.example/authorize'))).rejects.toThrow(
      'no answer from the browser within 0 s; authorization abandoned',
    );
  });
});

describe('HeadersHelperAuth', () => {
  const helper = (
    command: string,
    extra: Partial<ConstructorParameters<typeof HeadersHelperAuth>[0]> = {},
  ) =>
    new HeadersHelperAuth({
      command,
      serverName: 'api',
      serverUrl: 'https://api.example/mcp',
      ...extra,
    });

  it('its JSON object overrides the static headers; the server name and URL are in its environment', async () => {
    const auth = helper(
      `node -e 'console.log(JSON.stringify({Authorization: "Bearer from-helper", "X-Server": process.env.MCP_SERVER_NAME + " " + process.env.MCP_SERVER_URL}))'`,
      { headers: { Authorization: 'Bearer static', 'X-Static': '1' } },
    );
    expect(await auth.headers()).toEqual({
      Authorization: 'Bearer from-helper',
      'X-Static': '1',
      'X-Server': 'api https://api.example/mcp',
    });
  });

  it('runs again once on 401/403, not in a loop', async () => {
    const dir = await scratchDir('mcpkit-helper-');
    const counter = path.join(dir, 'n');
    const auth = helper(
      `node -e 'const fs=require("fs");const f=${JSON.stringify(counter)};const n=(fs.existsSync(f)?+fs.readFileSync(f,"utf8"):0)+1;fs.writeFileSync(f,String(n));console.log(JSON.stringify({Authorization:"Bearer "+n}))'`,
    );
    expect(await auth.headers()).toEqual({ Authorization: 'Bearer 1' });
    expect(await auth.onUnauthorized({ status: 401, wwwAuthenticate: undefined, url: 'x' })).toBe(
      true,
    );
    expect(await auth.headers()).toEqual({ Authorization: 'Bearer 2' });
    expect(await auth.onUnauthorized({ status: 401, wwwAuthenticate: undefined, url: 'x' })).toBe(
      false,
    );
    expect(await readFile(counter, 'utf8')).toBe('2');
  });

  it('a helper from a project config runs with a scrubbed environment', async () => {
    const auth = helper(
      `node -e 'console.log(JSON.stringify({Seen: String(process.env.MCPKIT_TEST_SECRET)}))'`,
      { scrubEnvironment: true, env: { ...process.env, MCPKIT_TEST_SECRET: 'leak' } },
    );
    expect(await auth.headers()).toEqual({ Seen: 'undefined' });
  });

  it('failures are typed errors that say what went wrong', async () => {
    const fails = await helper(`echo oops >&2; exit 3`)
      .headers()
      .catch((e: unknown) => e);
    expect(HeadersHelperError.isInstance(fails)).toBe(true);
    expect((fails as Error).message).toBe('server "api": headersHelper failed (exit code 3): oops');
    await expect(helper('echo not json').headers()).rejects.toThrow(
      'server "api": headersHelper printed something that is not JSON (8 characters)',
    );
    await expect(helper(`echo '{"A": 1}'`).headers()).rejects.toThrow(
      'server "api": headersHelper: header "A" is not a string',
    );
    await expect(helper(`echo '[1]'`).headers()).rejects.toThrow(
      'printed JSON that is not an object',
    );
  });

  it('a helper that hangs is stopped after its timeout, its whole process group with it', async () => {
    const marker = `mcpkit-helper-hang-${process.pid}`;
    const auth = helper(`sleep 30 # ${marker}`, { timeoutMs: 200 });
    await expect(auth.headers()).rejects.toThrow(
      'server "api": headersHelper did not finish within 0.2 s; it was stopped',
    );
    await new Promise((r) => setTimeout(r, 100));
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps).not.toContain(marker);
  });
});

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError } from './errors.js';
import { WorkloadIdentityProvider } from './workload-identity.js';

/**
 * The workload identity provider against a real authorization server on 127.0.0.1 (node:http):
 * metadata, protected-resource metadata and a token endpoint that takes the JWT-bearer grant
 * and refuses the workload tokens a test names.
 */

const refusedTokens = new Set<string>();
const grants: Array<Record<string, string>> = [];
let origin = '';
let dir = '';
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const send = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.url === '/.well-known/oauth-protected-resource/mcp')
    return send(200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
  if (req.url === '/.well-known/oauth-authorization-server')
    return send(200, {
      issuer: origin,
      token_endpoint: `${origin}/token`,
      grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  if (req.url === '/token') {
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    grants.push(form);
    if (refusedTokens.has(form.assertion ?? ''))
      return send(400, { error: 'invalid_grant', error_description: 'untrusted issuer' });
    return send(200, {
      access_token: `at-${grants.length}`,
      token_type: 'Bearer',
      expires_in: 600,
    });
  }
  res.writeHead(404).end();
});

const { privateKey } = await generateKeyPair('ES256');
const workloadJwt = (sub: string, expiresIn = '5m') =>
  new SignJWT({})
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer('https://k8s.example')
    .setSubject(sub)
    .setAudience(origin)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(privateKey);

const unauthorized = () => ({ status: 401, wwwAuthenticate: undefined, url: `${origin}/mcp` });

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(path.join(tmpdir(), 'mcpkit-wif-'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

describe('WorkloadIdentityProvider', () => {
  it('presents the token file as a JWT-bearer grant, and reads it again once it rotates', async () => {
    const file = path.join(dir, 'token');
    const first = await workloadJwt('pod-a');
    await writeFile(file, `${first}\n`);
    const provider = new WorkloadIdentityProvider({
      serverUrl: `${origin}/mcp`,
      serverName: 'wif',
      clientId: 'workload-client',
      workloadToken: { path: file },
    });
    grants.length = 0;
    expect(await provider.onUnauthorized(unauthorized())).toBe(true);
    expect(await provider.headers()).toEqual({ authorization: 'Bearer at-1' });
    expect(grants[0]).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: first,
      resource: `${origin}/mcp`,
      client_id: 'workload-client',
    });
    const second = await workloadJwt('pod-a-rotated');
    await writeFile(file, second);
    await provider.onUnauthorized({ ...unauthorized(), authorization: 'Bearer at-1' });
    expect(grants[1]!.assertion).toBe(second);
    expect(await provider.headers()).toEqual({ authorization: 'Bearer at-2' });
  });

  it('a refused workload token is not presented again until it changes', async () => {
    let current = await workloadJwt('untrusted');
    refusedTokens.add(current);
    const provider = new WorkloadIdentityProvider({
      serverUrl: `${origin}/mcp`,
      serverName: 'wif',
      workloadToken: () => current,
    });
    grants.length = 0;
    const first = await provider.onUnauthorized(unauthorized()).catch((e: unknown) => e);
    expect(AuthError.isInstance(first)).toBe(true);
    expect((first as AuthError).oauthError).toBe('invalid_grant');
    expect((first as Error).message).toContain('not presented again until it changes');
    expect((first as Error).message).not.toContain(current);
    const again = await provider.onUnauthorized(unauthorized()).catch((e: unknown) => e);
    expect(again).toBe(first);
    expect(grants).toHaveLength(1);
    // No client_id configured: the assertion alone identifies the workload.
    expect(grants[0]).not.toHaveProperty('client_id');
    current = await workloadJwt('trusted');
    expect(await provider.onUnauthorized(unauthorized())).toBe(true);
    expect(grants).toHaveLength(2);
  });

  it('an expired, malformed, oversized or missing workload token is never sent', async () => {
    grants.length = 0;
    const expired = await workloadJwt('old', '-60s');
    const file = path.join(dir, 'big');
    await writeFile(file, 'a'.repeat(70_000));
    const cases: Array<
      [ConstructorParameters<typeof WorkloadIdentityProvider>[0]['workloadToken'], RegExp]
    > = [
      [() => expired, /expired at .*not rotated/],
      [() => 'not a jwt', /is not a JWT/],
      [{ path: file }, /more than 65536 bytes/],
      [
        { path: path.join(dir, 'nowhere') },
        /could not read the workload token from .*nowhere.*ENOENT/,
      ],
    ];
    for (const [workloadToken, message] of cases) {
      const provider = new WorkloadIdentityProvider({
        serverUrl: `${origin}/mcp`,
        serverName: 'wif',
        workloadToken,
      });
      const error = await provider.onUnauthorized(unauthorized()).catch((e: unknown) => e);
      expect(AuthError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toMatch(/^server "wif": /);
    }
    expect(grants).toHaveLength(0);
  });

  it('refuses a source that is neither a path nor a function', () => {
    expect(
      () =>
        new WorkloadIdentityProvider({
          serverUrl: `${origin}/mcp`,
          workloadToken: 'a token' as never,
        }),
    ).toThrow(TypeError);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import {
  AccessControl,
  createGatewayEndpoints,
  GatewayEndpoints,
  parseGatewayConfig,
} from '@mcpkit/gateway';
import { type HttpListener, type HttpListenerOptions, listenHttp } from '@mcpkit/gateway/node';
import { McpManager } from '@mcpkit/manager';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { composeBackends } from './compose-support.js';

/**
 * The gateway in this process with the two echo backends (`notes`, `files`) and the endpoint
 * `notes-only` (`/mcp/notes-only`), listening with the given authentication.
 */
export async function startOAuthGateway(
  listen: Pick<HttpListenerOptions, 'oauth' | 'token' | 'publicUrl'>,
  /** An `access` section (policy rules …) for the gateway config. */
  access?: Record<string, unknown>,
): Promise<{ listener: HttpListener; close(): Promise<void> }> {
  const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-oauth-gw-'));
  const entries = Object.entries(composeBackends()).map(
    ([name, c]) =>
      ({
        name,
        scope: 'user',
        source: 'test',
        config: c as ServerConfig,
        status: 'enabled',
        reason: 'test entry',
        policy: { allowed: true },
      }) as ResolvedServer,
  );
  const config = parseGatewayConfig(
    JSON.stringify({ endpoints: { 'notes-only': { servers: ['notes'] } }, access }),
    { file: 'test.jsonc', servers: entries.map((e) => e.name) },
  );
  const control = access ? new AccessControl({ config: config.access }) : undefined;
  let endpoints: GatewayEndpoints | undefined;
  const manager = new McpManager({
    servers: entries,
    clientInfo: { name: 'oauth-gw', version: '0.0.0' },
    handlers: GatewayEndpoints.handlers(() => endpoints),
    env: { PATH: process.env.PATH ?? '', HOME: home },
    home,
  });
  endpoints = createGatewayEndpoints({
    manager,
    servers: entries.map((e) => e.name),
    info: { name: 'oauth-gw', version: '0.0.0' },
    callTimeoutMs: 30_000,
    warn: () => {},
    config,
    ...(control ? { access: control } : {}),
  });
  await manager.connectAll();
  await endpoints.start();
  const started = endpoints;
  const listener = await listenHttp(started.default, { port: 0, endpoints: started, ...listen });
  return {
    listener,
    async close() {
      await listener.close().catch(() => {});
      await started.close().catch(() => {});
      await manager.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * A small authorization server of our own on 127.0.0.1: RFC 8414 metadata and a JWKS, and
 * access tokens signed with its current key. Made for what a certified one will not do on
 * request: expired tokens, other audiences, a key rotated away. `jwksHits` counts fetches.
 */
export async function startKeyIssuer(
  options: { jwks?: (req: IncomingMessage, res: ServerResponse) => boolean } = {},
) {
  let keys: { kid: string; privateKey: CryptoKey; jwk: JWK }[] = [];
  let counter = 0;
  const newKey = async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = `key-${++counter}`;
    return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
  };
  keys.push(await newKey());
  let jwksHits = 0;
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }),
      );
      return;
    }
    if (req.url === '/jwks') {
      jwksHits++;
      if (options.jwks?.(req, res)) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    get jwksHits() {
      return jwksHits;
    },
    /** A token signed with the current key (or `key`); claims override the defaults. */
    async sign(
      claims: JWTPayload & { scope?: string; client_id?: string },
      key = keys[keys.length - 1]!,
    ): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, sub: 'ada', iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    /** The current key, for a token signed with it later. */
    currentKey: () => keys[keys.length - 1]!,
    /** A new key replaces every old one in the JWKS. */
    async rotate() {
      keys = [await newKey()];
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The `WWW-Authenticate` parameters of a Bearer challenge, by name. */
export function challengeParams(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header || !/^Bearer\b/i.test(header)) return out;
  for (const m of header.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g))
    out[m[1]!] = m[2]!.replace(/\\(.)/g, '$1');
  return out;
}

import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';

/**
 * A resource server for DPoP tests, on node:http at 127.0.0.1: it accepts a request only
 * with `Authorization: DPoP <token>` and one proof that verifies (signature by the key in
 * its header, `typ`, `htm`, `htu`, `iat` within a minute, `ath` of the token, the token
 * bound to that key, a `jti` never seen before, the current nonce when it asks for one),
 * then forwards it to the MCP server behind it and relays the answer.
 */
export interface DpopResourceServerOptions {
  /** The MCP server behind (answers JSON, no standalone GET stream). */
  upstream: string;
  /** The thumbprint (`cnf.jkt`) `token` is bound to, `undefined` if the token is not live. */
  boundKey(token: string, resource: string): Promise<string | undefined>;
  authorizationServers: string[];
  scopes?: string[];
  /** Proofs must carry this nonce (RFC 9449 9); read on each request, so a test can rotate it. */
  nonce?: () => string;
}

export interface DpopResourceServer {
  url: string;
  /** Why each refused request was refused, in order. */
  refusals: string[];
  /** Requests forwarded after their proof verified. */
  accepted: Array<{ method: string; authorization: string; dpop: string }>;
  close(): Promise<void>;
}

const ALGS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'PS256', 'RS256'];

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startDpopResourceServer(
  options: DpopResourceServerOptions,
): Promise<DpopResourceServer> {
  const seen = new Set<string>();
  const refusals: string[] = [];
  const accepted: DpopResourceServer['accepted'] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const prmUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;

  function refuse(res: ServerResponse, why: string, error?: string, nonce?: string): void {
    refusals.push(why);
    const params = [
      `algs="${ALGS.join(' ')}"`,
      `resource_metadata="${prmUrl}"`,
      ...(error ? [`error="${error}"`, `error_description="${why}"`] : []),
    ];
    res
      .writeHead(401, {
        'www-authenticate': `DPoP ${params.join(', ')}`,
        ...(nonce ? { 'dpop-nonce': nonce } : {}),
      })
      .end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resource: url,
          authorization_servers: options.authorizationServers,
          ...(options.scopes ? { scopes_supported: options.scopes } : {}),
          dpop_bound_access_tokens_required: true,
        }),
      );
      return;
    }
    const body = await readBody(req);
    const authorization = req.headers.authorization ?? '';
    const proof = req.headers.dpop;
    const m = /^DPoP ([\x21-\x7e]+)$/.exec(authorization);
    if (!m) return refuse(res, 'no DPoP token');
    const token = m[1]!;
    if (typeof proof !== 'string' || proof.includes(','))
      return refuse(res, 'not exactly one proof', 'invalid_dpop_proof');
    let payload: Record<string, unknown>;
    let jwk: Record<string, unknown>;
    try {
      const header = decodeProtectedHeader(proof);
      jwk = header.jwk as Record<string, unknown>;
      if (!jwk || 'd' in jwk) throw new Error('the proof header has no public jwk');
      ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ALGS }));
    } catch (error) {
      return refuse(res, `bad proof: ${(error as Error).message}`, 'invalid_dpop_proof');
    }
    if (payload.htm !== req.method) return refuse(res, 'htm mismatch', 'invalid_dpop_proof');
    if (payload.htu !== `${origin}${new URL(req.url ?? '/', origin).pathname}`)
      return refuse(res, 'htu mismatch', 'invalid_dpop_proof');
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > 60)
      return refuse(res, 'iat out of window', 'invalid_dpop_proof');
    if (payload.ath !== createHash('sha256').update(token).digest('base64url'))
      return refuse(res, 'ath mismatch', 'invalid_dpop_proof');
    if (typeof payload.jti !== 'string') return refuse(res, 'no jti', 'invalid_dpop_proof');
    if (seen.has(payload.jti)) return refuse(res, 'replayed proof', 'invalid_dpop_proof');
    seen.add(payload.jti);
    const bound = await options.boundKey(token, url);
    if (!bound || bound !== (await calculateJwkThumbprint(jwk as never, 'sha256')))
      return refuse(res, 'token not bound to the proof key', 'invalid_token');
    const nonce = options.nonce?.();
    if (nonce !== undefined && payload.nonce !== nonce)
      return refuse(res, 'nonce required', 'use_dpop_nonce', nonce);
    accepted.push({ method: req.method ?? '', authorization, dpop: proof });
    const forward: Record<string, string> = {};
    for (const name of ['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version'])
      if (typeof req.headers[name] === 'string') forward[name] = req.headers[name] as string;
    const upstream = await fetch(options.upstream, {
      method: req.method ?? 'POST',
      headers: forward,
      ...(req.method === 'POST' ? { body } : {}),
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (['content-type', 'mcp-session-id'].includes(k)) out[k] = v;
    });
    res.writeHead(upstream.status, out).end(Buffer.from(await upstream.arrayBuffer()));
  }

  return {
    url,
    refusals,
    accepted,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

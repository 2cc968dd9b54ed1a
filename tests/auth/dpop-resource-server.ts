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

export type ProofVerdict =
  | { ok: true; authorization: string; proof: string; payload: Record<string, unknown> }
  | { ok: false; why: string; error?: string };

/**
 * Checks a request's DPoP token and proof as a resource server must (RFC 9449 4.3, 7.1):
 * one proof, signed by the public key in its header, `typ`, `htm`, `htu` (the URL without
 * query), `iat` within a minute, `ath` of the token, the token bound to that key, a `jti`
 * never seen by this verifier before.
 */
export function proofVerifier(boundKey: DpopResourceServerOptions['boundKey']) {
  const seen = new Set<string>();
  return async (req: IncomingMessage, resource: string): Promise<ProofVerdict> => {
    const origin = new URL(resource).origin;
    const authorization = req.headers.authorization ?? '';
    const proof = req.headers.dpop;
    const m = /^DPoP ([\x21-\x7e]+)$/.exec(authorization);
    if (!m) return { ok: false, why: 'no DPoP token' };
    const token = m[1]!;
    if (typeof proof !== 'string' || proof.includes(','))
      return { ok: false, why: 'not exactly one proof', error: 'invalid_dpop_proof' };
    const bad = (why: string) => ({ ok: false as const, why, error: 'invalid_dpop_proof' });
    let payload: Record<string, unknown>;
    let jwk: Record<string, unknown>;
    try {
      jwk = decodeProtectedHeader(proof).jwk as Record<string, unknown>;
      if (!jwk || 'd' in jwk) throw new Error('the proof header has no public jwk');
      ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ALGS }));
    } catch (error) {
      return bad(`bad proof: ${(error as Error).message}`);
    }
    if (payload.htm !== req.method) return bad('htm mismatch');
    if (payload.htu !== `${origin}${new URL(req.url ?? '/', origin).pathname}`)
      return bad('htu mismatch');
    const now = Math.floor(Date.now() / 1000);
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > 60)
      return bad('iat out of window');
    if (payload.ath !== createHash('sha256').update(token).digest('base64url'))
      return bad('ath mismatch');
    if (typeof payload.jti !== 'string') return bad('no jti');
    if (seen.has(payload.jti)) return bad('replayed proof');
    seen.add(payload.jti);
    const bound = await boundKey(token, resource);
    if (!bound || bound !== (await calculateJwkThumbprint(jwk as never, 'sha256')))
      return { ok: false, why: 'token not bound to the proof key', error: 'invalid_token' };
    return { ok: true, authorization, proof, payload };
  };
}

export async function startDpopResourceServer(
  options: DpopResourceServerOptions,
): Promise<DpopResourceServer> {
  const verify = proofVerifier(options.boundKey);
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
    const v = await verify(req, url);
    if (!v.ok) return refuse(res, v.why, v.error);
    const { authorization, proof, payload } = v;
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

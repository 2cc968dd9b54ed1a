import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  accessTokenHash,
  checkNonce,
  chooseDpopAlgorithm,
  DpopKey,
  DpopNonces,
  htuOf,
  nonceOfProof,
} from './dpop.js';
import { MemoryTokenStore } from './store.js';
import { parseAuthChallenges } from './www-authenticate.js';

describe('DPoP proofs', () => {
  it('verify by the key in their header, with htm, htu (no query or fragment), iat, jti, ath and nonce', async () => {
    const key = await DpopKey.generate();
    const proof = await key.proof({
      htm: 'POST',
      htu: 'https://mcp.example/mcp?tenant=a#frag',
      accessToken: 'the-access-token',
      nonce: 'server-nonce',
    });
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: ['ES256'],
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.htm).toBe('POST');
    expect(payload.htu).toBe('https://mcp.example/mcp');
    expect(payload.ath).toBe(createHash('sha256').update('the-access-token').digest('base64url'));
    expect(payload.nonce).toBe('server-nonce');
    expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(5);
    expect(typeof payload.jti).toBe('string');
    expect(nonceOfProof(proof)).toBe('server-nonce');
  });

  it('each proof has its own jti; token requests carry no ath', async () => {
    const key = await DpopKey.generate();
    const a = await key.proof({ htm: 'POST', htu: 'https://as.example/token' });
    const b = await key.proof({ htm: 'POST', htu: 'https://as.example/token' });
    const ja = (await jwtVerify(a, EmbeddedJWK)).payload;
    const jb = (await jwtVerify(b, EmbeddedJWK)).payload;
    expect(ja.jti).not.toBe(jb.jti);
    expect(ja.ath).toBeUndefined();
    expect(ja.nonce).toBeUndefined();
  });

  it.each(['ES384', 'ES512', 'EdDSA', 'Ed25519', 'PS256', 'RS256'] as const)(
    '%s keys sign proofs that verify, and the header holds only the public key',
    async (alg) => {
      const key = await DpopKey.generate(alg);
      const proof = await key.proof({ htm: 'GET', htu: 'https://mcp.example/mcp' });
      await jwtVerify(proof, EmbeddedJWK, { algorithms: [alg] });
      const jwk = decodeProtectedHeader(proof).jwk!;
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
        expect(jwk).not.toHaveProperty(secret);
    },
  );

  it('a key survives a token store: restored, it signs with the same thumbprint', async () => {
    const key = await DpopKey.generate();
    const store = new MemoryTokenStore();
    await store.set('k', { issuers: { 'https://as': { dpop_key: key.stored } } });
    const back = (await store.get('k'))!.issuers['https://as']!.dpop_key!;
    const restored = await DpopKey.restore(back);
    const proof = await restored.proof({ htm: 'POST', htu: 'https://mcp.example/mcp' });
    expect(await calculateJwkThumbprint(decodeProtectedHeader(proof).jwk!, 'sha256')).toBe(
      await calculateJwkThumbprint(key.publicJwk, 'sha256'),
    );
  });

  it('a stored key that is public only, of an unknown algorithm, or not a key at all is refused', async () => {
    const key = await DpopKey.generate();
    const { d: _d, ...pub } = key.stored.jwk;
    await expect(DpopKey.restore({ alg: 'ES256', jwk: pub })).rejects.toThrow(/not a private key/);
    await expect(DpopKey.restore({ alg: 'HS256' as never, jwk: key.stored.jwk })).rejects.toThrow(
      /unknown algorithm/,
    );
    await expect(
      DpopKey.restore({ alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', d: 'x', x: 'y', y: 'z' } }),
    ).rejects.toThrow();
  });
});

describe('DPoP helpers', () => {
  it('htu drops query and fragment only', () => {
    expect(htuOf('https://a.example:8443/p/q?x=1#y')).toBe('https://a.example:8443/p/q');
    expect(htuOf('http://127.0.0.1:3000/mcp')).toBe('http://127.0.0.1:3000/mcp');
  });

  it('ath is base64url SHA-256 of the token', () => {
    expect(accessTokenHash('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('a nonce is 1 to 1024 NQCHARs, nothing else', () => {
    expect(checkNonce('eyJ7S_zG.9-~!')).toBe('eyJ7S_zG.9-~!');
    for (const bad of ['', 'a b', 'a"b', 'a\\b', 'tab\there', 'é', 'n'.repeat(1025), 42, undefined])
      expect(checkNonce(bad)).toBeUndefined();
    expect(checkNonce('n'.repeat(1024))).toHaveLength(1024);
  });

  it('nonces are kept per origin, the latest wins, and the oldest origin goes first past the bound', () => {
    const nonces = new DpopNonces(2);
    nonces.set('https://as.example/token', 'n1');
    nonces.set('https://as.example/other', 'n2');
    nonces.set('https://rs.example/mcp', 'r1');
    expect(nonces.get('https://as.example/x?y')).toBe('n2');
    expect(nonces.get('https://rs.example/')).toBe('r1');
    expect(nonces.set('https://rs.example/mcp', 'bad nonce')).toBeUndefined();
    expect(nonces.get('https://rs.example/')).toBe('r1');
    nonces.set('https://third.example/', 't');
    expect(nonces.get('https://as.example/')).toBeUndefined();
    expect(nonces.get('https://third.example/')).toBe('t');
  });

  it('the algorithm: the one asked for if offered, else ES256, else the first offered this client can use', () => {
    expect(chooseDpopAlgorithm(undefined, undefined)).toBe('ES256');
    expect(chooseDpopAlgorithm(undefined, ['PS256', 'ES256'])).toBe('ES256');
    expect(chooseDpopAlgorithm(undefined, ['HS256', 'EdDSA', 'PS256'])).toBe('EdDSA');
    expect(chooseDpopAlgorithm(undefined, ['HS256', 'none'])).toBeUndefined();
    expect(chooseDpopAlgorithm('PS256', ['ES256'])).toBeUndefined();
    expect(chooseDpopAlgorithm('PS256', undefined)).toBe('PS256');
  });

  it('challenges: Bearer and DPoP apart, with the DPoP error and algs', () => {
    expect(
      parseAuthChallenges(
        'Bearer realm="api", DPoP algs="ES256 PS256", error="use_dpop_nonce", resource_metadata="https://rs/.well-known/x"',
      ),
    ).toEqual({
      bearer: { realm: 'api' },
      dpop: {
        algs: 'ES256 PS256',
        error: 'use_dpop_nonce',
        resourceMetadata: 'https://rs/.well-known/x',
      },
    });
    expect(parseAuthChallenges('DPoP resource_metadata="https://rs/m"')).toEqual({
      dpop: { resourceMetadata: 'https://rs/m' },
    });
    expect(parseAuthChallenges(undefined)).toEqual({});
  });
});

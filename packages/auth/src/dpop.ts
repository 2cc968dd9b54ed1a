import { createHash, randomUUID } from 'node:crypto';
import {
  type CryptoKey,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
} from 'jose';

/**
 * DPoP (RFC 9449): a key pair per client, kept with its registration, that signs a proof
 * for each token request and each request to the MCP server, so a stolen access token is
 * useless without the private key.
 */

/** Signature algorithms this client can sign DPoP proofs with, the default first. */
export const dpopAlgorithms = [
  'ES256',
  'ES384',
  'ES512',
  'Ed25519',
  'EdDSA',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
] as const;

export type DpopAlgorithm = (typeof dpopAlgorithms)[number];

/**
 * `true`: use DPoP with every authorization server (ES256 unless it lists others only);
 * `{ alg }`: with that algorithm; `false`: never, even where the server offers it.
 * Unset: DPoP where the MCP server asks for it, or the authorization server advertises
 * `dpop_signing_alg_values_supported` and the MCP server did not challenge with `Bearer`
 * alone.
 */
export type DpopSetting = boolean | { alg?: DpopAlgorithm };

/** A DPoP key as a token store keeps it: the private JWK (the file store's file is 0600). */
export interface StoredDpopKey {
  alg: DpopAlgorithm;
  jwk: JWK;
}

// What a proof's header carries of the key (EC, OKP, RSA): the public members only, so
// that nothing private (d, p, q, …) can reach it whatever else a stored JWK holds.
const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;

/** The public half of a JWK, with only what RFC 7638 and a verifier need. */
function publicJwkOf(jwk: JWK): JWK {
  const out: Record<string, unknown> = {};
  for (const k of PUBLIC_MEMBERS) if (jwk[k] !== undefined) out[k] = jwk[k];
  return out as JWK;
}

/** `url` without its query and fragment: a proof's `htu` (RFC 9449 4.2). */
export function htuOf(url: string | URL): string {
  const u = new URL(String(url));
  u.search = '';
  u.hash = '';
  return u.href;
}

/** `base64url(SHA-256(token))`: a proof's `ath` (RFC 9449 4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** Longest nonce taken from a server: a genuine one is a few dozen characters. */
const MAX_NONCE_LENGTH = 1024;

/**
 * A `DPoP-Nonce` value if it is one (RFC 9449 8.1: `1*NQCHAR`, here at most 1024
 * characters); otherwise `undefined`, and it is not used.
 */
export function checkNonce(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NONCE_LENGTH)
    return undefined;
  // NQCHAR: %x21 / %x23-5B / %x5D-7E (no space, quote or backslash).
  return /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value) ? value : undefined;
}

/** The `nonce` claim of a proof this client made; `undefined` if none or not a proof. */
export function nonceOfProof(proof: string | undefined): string | undefined {
  if (!proof) return undefined;
  try {
    const nonce = decodeJwt(proof).nonce;
    return typeof nonce === 'string' ? nonce : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The latest nonce each server gave, per origin (RFC 9449 8 and 9: a nonce is good at the
 * server that issued it). Bounded: the oldest origin is forgotten first.
 */
export class DpopNonces {
  private readonly byOrigin = new Map<string, string>();
  constructor(private readonly maxOrigins = 64) {}

  get(url: string | URL): string | undefined {
    return this.byOrigin.get(new URL(String(url)).origin);
  }

  /** Keeps `nonce` for `url`'s origin if it is a valid nonce; returns what was kept. */
  set(url: string | URL, nonce: unknown): string | undefined {
    const checked = checkNonce(nonce);
    if (checked === undefined) return undefined;
    const origin = new URL(String(url)).origin;
    this.byOrigin.delete(origin);
    this.byOrigin.set(origin, checked);
    if (this.byOrigin.size > this.maxOrigins)
      this.byOrigin.delete(this.byOrigin.keys().next().value!);
    return checked;
  }

  clear(): void {
    this.byOrigin.clear();
  }
}

/** What a proof is for. */
export interface DpopProofRequest {
  /** The HTTP method. */
  htm: string;
  /** The request URL; its query and fragment are dropped. */
  htu: string | URL;
  /** For requests to the resource: the access token the proof goes with (`ath`). */
  accessToken?: string | undefined;
  /** The server's latest nonce. */
  nonce?: string | undefined;
}

/** A DPoP key pair: signs proofs; its public JWK goes in each proof's header. */
export class DpopKey {
  private constructor(
    readonly alg: DpopAlgorithm,
    private readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    /** The form a token store keeps. */
    readonly stored: StoredDpopKey,
  ) {}

  /** A new key pair for `alg`. */
  static async generate(alg: DpopAlgorithm = 'ES256'): Promise<DpopKey> {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(privateKey);
    return DpopKey.restore({ alg, jwk });
  }

  /** A key from a token store; rejects what is not a private key for its algorithm. */
  static async restore(stored: StoredDpopKey): Promise<DpopKey> {
    if (!dpopAlgorithms.includes(stored?.alg))
      throw new TypeError(`a stored DPoP key has the unknown algorithm "${String(stored?.alg)}"`);
    if (typeof stored.jwk?.d !== 'string')
      throw new TypeError('a stored DPoP key is not a private key');
    const key = await importJWK(stored.jwk, stored.alg);
    if (key instanceof Uint8Array) throw new TypeError('a stored DPoP key is a symmetric key');
    return new DpopKey(stored.alg, key, publicJwkOf(stored.jwk), stored);
  }

  /** A fresh proof: `jti` unique, `iat` now, `ath` and `nonce` when given. */
  async proof(request: DpopProofRequest): Promise<string> {
    const claims: Record<string, string> = { htm: request.htm, htu: htuOf(request.htu) };
    if (request.accessToken !== undefined) claims.ath = accessTokenHash(request.accessToken);
    if (request.nonce !== undefined) claims.nonce = request.nonce;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: this.alg, typ: 'dpop+jwt', jwk: this.publicJwk })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(this.privateKey);
  }
}

/**
 * The algorithm to sign with at an authorization server that lists `supported`
 * (`undefined`: it lists none): the one asked for, else ES256, else the first listed that
 * this client can use. `undefined` when there is none.
 */
export function chooseDpopAlgorithm(
  wanted: DpopAlgorithm | undefined,
  supported: readonly unknown[] | undefined,
): DpopAlgorithm | undefined {
  const offered = supported?.filter((a): a is string => typeof a === 'string');
  if (wanted) return !offered || offered.includes(wanted) ? wanted : undefined;
  if (!offered || offered.includes('ES256')) return 'ES256';
  return dpopAlgorithms.find((a) => offered.includes(a));
}

import type { Discovered } from './discovery.js';
import {
  chooseDpopAlgorithm,
  DpopKey,
  DpopNonces,
  type DpopSetting,
  dpopAlgorithms,
  type StoredDpopKey,
} from './dpop.js';
import { showValue } from './endpoint.js';
import type { AuthError } from './errors.js';
import type { SecretSet } from './redact.js';
import type { AuthRecord } from './store.js';
import type { TokenResponse } from './token-endpoint.js';
import type { AuthChallenges } from './www-authenticate.js';

/** What the keyring needs of the provider it serves. */
export interface DpopKeyringHost {
  record(): Promise<AuthRecord>;
  saveRecord(record: AuthRecord): Promise<void>;
  log(message: string): void;
  fail(message: string): AuthError;
  readonly secrets: SecretSet;
}

/**
 * A provider's DPoP state: whether DPoP is used with an authorization server, the key for
 * each issuer (made once, stored with the registration, imported once), and the latest
 * nonce of each server.
 */
export class DpopKeyring {
  /** The latest DPoP nonce of each server (authorization and resource), per origin. */
  readonly nonces = new DpopNonces();
  /** Imported keys, by issuer, with the stored form they came from. */
  private readonly keys = new Map<string, { stored: StoredDpopKey; key: Promise<DpopKey> }>();
  /**
   * What the MCP server's last challenge offered: `dpop` (the `DPoP` scheme, maybe beside
   * `Bearer`) or `bearer-only`; `undefined` before any challenge.
   */
  private resourceScheme: 'dpop' | 'bearer-only' | undefined;

  constructor(
    private readonly setting: DpopSetting | undefined,
    private readonly host: DpopKeyringHost,
  ) {
    const alg = typeof setting === 'object' ? setting.alg : undefined;
    if (alg !== undefined && !dpopAlgorithms.includes(alg))
      throw new TypeError(
        `dpop.alg must be one of ${dpopAlgorithms.join(', ')}, not ${JSON.stringify(alg)}`,
      );
  }

  /** Notes which schemes the MCP server challenged with. */
  noteChallenge(challenges: AuthChallenges): void {
    if (challenges.dpop) this.resourceScheme = 'dpop';
    else if (challenges.bearer) this.resourceScheme = 'bearer-only';
  }

  /**
   * Whether DPoP is used with `d` when the host did not say: the resource requires it (its
   * metadata's `dpop_bound_access_tokens_required`, or a `DPoP` challenge), or the
   * authorization server offers it and the resource did not challenge with `Bearer` alone
   * (a resource that knows only Bearer would refuse a DPoP token).
   */
  private wanted(d: Discovered, advertised: boolean): boolean {
    if (d.resourceMetadata?.dpop_bound_access_tokens_required === true) return true;
    if (this.resourceScheme === 'dpop') return true;
    return advertised && this.resourceScheme !== 'bearer-only';
  }

  /**
   * The key for tokens from `d`'s issuer, made (and stored with the registration) the first
   * time; `undefined` when DPoP is not used there.
   */
  async keyFor(d: Discovered): Promise<DpopKey | undefined> {
    const setting = this.setting;
    if (setting === false) return undefined;
    const supported = d.metadata.dpop_signing_alg_values_supported;
    const advertised = Array.isArray(supported) && supported.length > 0;
    if (!setting && !this.wanted(d, advertised)) return undefined;
    const wanted = typeof setting === 'object' ? setting.alg : undefined;
    const alg = chooseDpopAlgorithm(wanted, advertised ? supported : undefined);
    if (!alg) {
      const listed = (supported as unknown[]).map((a) => showValue(a)).join(', ');
      if (setting)
        throw this.host.fail(
          `the authorization server ${d.metadata.issuer} accepts DPoP proofs signed with ${listed}${wanted ? `, not ${wanted}` : ', none of which this client can make'}; set dpop.alg to one of them, or dpop: false`,
        );
      this.host.log(`DPoP not used: this client signs none of ${listed}`);
      return undefined;
    }
    const issuer = d.metadata.issuer;
    const have = await this.storedKey(issuer);
    if (have?.alg === alg) return have;
    const key = await DpopKey.generate(alg);
    const r = await this.host.record();
    const entry = r.issuers[issuer] ?? {};
    entry.dpop_key = key.stored;
    r.issuers[issuer] = entry;
    await this.host.saveRecord(r);
    this.keys.set(issuer, { stored: key.stored, key: Promise.resolve(key) });
    this.host.secrets.remember(key.stored.jwk.d);
    this.host.log(`made a DPoP key (${alg}) for ${issuer}`);
    return key;
  }

  /** The stored key for `issuer`, imported once; `undefined` if none or damaged. */
  async storedKey(issuer: string): Promise<DpopKey | undefined> {
    const stored = (await this.host.record()).issuers[issuer]?.dpop_key;
    if (!stored) return undefined;
    let cached = this.keys.get(issuer);
    if (cached?.stored !== stored) {
      cached = { stored, key: DpopKey.restore(stored) };
      this.keys.set(issuer, cached);
      this.host.secrets.remember(stored.jwk?.d);
    }
    return cached.key.catch(() => undefined);
  }

  /**
   * The token type to store for `response` to a request made with `key` (or none). A token
   * that should be bound and is not is refused when the host asked for DPoP; a bound token
   * this client has no key for is refused always.
   */
  tokenType(response: TokenResponse, key: DpopKey | undefined, what: string): 'DPoP' | 'Bearer' {
    const type = typeof response.token_type === 'string' ? response.token_type : 'Bearer';
    const bound = type.toLowerCase() === 'dpop';
    if (bound && !key)
      throw this.host.fail(
        `${what}: the authorization server issued a DPoP-bound token to a request that carried no DPoP proof; it cannot be used`,
      );
    if (key && !bound) {
      if (this.setting)
        throw this.host.fail(
          `${what}: the authorization server issued a "${showValue(type)}" token, not a DPoP-bound one, though this client asked for DPoP; refusing a token that is not sender-constrained (set dpop: false to accept bearer tokens from this server)`,
        );
      this.host.log(
        `the authorization server issued a ${showValue(type)} token despite the DPoP proof`,
      );
    }
    return bound ? 'DPoP' : 'Bearer';
  }

  /** Forgets imported keys and nonces (the store keeps the keys). */
  clear(): void {
    this.keys.clear();
    this.nonces.clear();
  }
}

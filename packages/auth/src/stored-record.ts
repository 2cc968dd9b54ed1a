import { isRecord } from '@mcpkit/jsonrpc/internal';
import type { StoredDpopKey } from './dpop.js';

/** Tokens as kept: `expires_at` is absolute (ms since the epoch). */
export interface StoredTokens {
  access_token: string;
  /** `Bearer`, or `DPoP` for a token bound to the issuer's DPoP key. */
  token_type: string;
  refresh_token?: string;
  expires_at?: number;
  scope?: string;
}

/** A client registration, valid only with the authorization server that issued it. */
export interface StoredClient {
  client_id: string;
  client_secret?: string;
  /** How this client authenticates at the token endpoint. */
  token_endpoint_auth_method?: string;
  redirect_uris?: string[];
  /** `dynamic` (RFC 7591), `metadata-document` (a URL as client_id), `pre-registered`. */
  kind: 'dynamic' | 'metadata-document' | 'pre-registered';
}

/** Everything known about one MCP server's authorization, per authorization server. */
export interface AuthRecord {
  /** The issuer in use. */
  issuer?: string;
  issuers: Record<
    string,
    {
      client?: StoredClient;
      tokens?: StoredTokens;
      /** The DPoP key this client's tokens from that issuer are bound to (private JWK). */
      dpop_key?: StoredDpopKey;
    }
  >;
}

const CLIENT_KINDS: ReadonlySet<string> = new Set([
  'dynamic',
  'metadata-document',
  'pre-registered',
]);

const optional = (value: unknown, check: (v: unknown) => boolean): boolean =>
  value === undefined || check(value);
const isString = (v: unknown): boolean => typeof v === 'string';
const isNonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

function storedTokens(value: unknown): StoredTokens | undefined {
  if (!isRecord(value)) return undefined;
  const ok =
    isNonEmptyString(value.access_token) &&
    isNonEmptyString(value.token_type) &&
    optional(value.refresh_token, isNonEmptyString) &&
    optional(value.expires_at, (v) => typeof v === 'number' && Number.isFinite(v)) &&
    optional(value.scope, isString);
  return ok ? (value as unknown as StoredTokens) : undefined;
}

function storedClient(value: unknown): StoredClient | undefined {
  if (!isRecord(value)) return undefined;
  const ok =
    isNonEmptyString(value.client_id) &&
    typeof value.kind === 'string' &&
    CLIENT_KINDS.has(value.kind) &&
    optional(value.client_secret, isString) &&
    optional(value.token_endpoint_auth_method, isString) &&
    optional(value.redirect_uris, (v) => Array.isArray(v) && v.every(isString));
  return ok ? (value as unknown as StoredClient) : undefined;
}

/**
 * A record read back from a store (a file, the OS keychain: anything could have written
 * it), kept only in the shape the rest of the package relies on. What is damaged is
 * dropped and what is sound is kept: a registration survives a broken token, so that the
 * next sign-in reuses it. Undefined when the record's frame itself is not there.
 */
export function storedRecord(value: unknown): AuthRecord | undefined {
  if (!isRecord(value) || !isRecord(value.issuers)) return undefined;
  const issuers: AuthRecord['issuers'] = {};
  for (const [issuer, entry] of Object.entries(value.issuers)) {
    // An own "__proto__" key (JSON.parse makes one) must not become the object's prototype.
    if (issuer === '__proto__' || !isRecord(entry)) continue;
    const kept: AuthRecord['issuers'][string] = {};
    const client = storedClient(entry.client);
    if (client) kept.client = client;
    const key = entry.dpop_key;
    if (isRecord(key) && typeof key.alg === 'string' && isRecord(key.jwk))
      kept.dpop_key = key as unknown as NonNullable<typeof kept.dpop_key>;
    // A DPoP token whose key is gone is kept: headers() says so and lets the 401 renew it.
    const tokens = storedTokens(entry.tokens);
    if (tokens) kept.tokens = tokens;
    issuers[issuer] = kept;
  }
  const record: AuthRecord = { issuers };
  if (typeof value.issuer === 'string') record.issuer = value.issuer;
  return record;
}

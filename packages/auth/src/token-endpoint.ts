import type { DpopKey, DpopNonces } from './dpop.js';
import { showValue } from './endpoint.js';
import { AuthError } from './errors.js';
import { fetchBounded, parseObject, type RequestContext } from './fetch-bounded.js';
import { redact } from './redact.js';
import type { StoredTokens } from './store.js';

/** How a client proves itself at a token endpoint. */
export type ClientAuth =
  | { method: 'none'; clientId: string }
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; clientSecret: string }
  | { method: 'private_key_jwt'; clientId: string; assertion: () => Promise<string> }
  /** The grant carries the client's identity itself (no client_id in the body). */
  | { method: 'assertion-only' };

/** The token endpoint's auth method for a client with (or without) a secret. */
export function chooseAuthMethod(
  supported: readonly string[] | undefined,
  hasSecret: boolean,
): 'none' | 'client_secret_basic' | 'client_secret_post' {
  if (!hasSecret) return 'none';
  // RFC 8414: absent means client_secret_basic.
  const offered = supported ?? ['client_secret_basic'];
  if (offered.includes('client_secret_basic')) return 'client_secret_basic';
  if (offered.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');

/** The response of a token endpoint, raw (token exchange returns other token types). */
export interface TokenResponse {
  access_token: string;
  token_type?: string;
  /** As the server sent it: checked by `expiresAtOf`, never trusted to be a sane number. */
  expires_in?: unknown;
  refresh_token?: string;
  scope?: string;
  issued_token_type?: string;
  [key: string]: unknown;
}

/** A DPoP key and the nonces known so far: the token request carries a proof. */
export interface TokenRequestDpop {
  key: DpopKey;
  nonces: DpopNonces;
}

/**
 * POSTs a grant to a token endpoint (already checked by the endpoint rule) within the
 * step's time and size limits; rejects with `AuthError` carrying the OAuth error. The
 * tokens it receives and the secrets it sends are remembered in `ctx.secrets`. With
 * `dpop`, the request carries a proof; a `use_dpop_nonce` answer with a new nonce is
 * retried once with it (RFC 9449 8), and the latest nonce is kept for the endpoint.
 */
export async function tokenRequest(
  endpoint: string,
  params: Record<string, string | undefined>,
  auth: ClientAuth,
  ctx: RequestContext,
  what: string,
  dpop?: TokenRequestDpop,
): Promise<TokenResponse> {
  const secrets = ctx.secrets;
  for (const key of ['refresh_token', 'subject_token', 'assertion', 'code', 'code_verifier'])
    secrets?.remember(params[key]);
  const hide = (text: string) => (secrets ? secrets.redact(text) : redact(text));
  for (let attempt = 0; ; attempt++) {
    // Built anew for a retry: a client assertion or a proof is good for one request only.
    const nonce = dpop?.nonces.get(endpoint);
    const init = await requestOf(params, auth, secrets);
    if (dpop) init.headers.dpop = await dpop.key.proof({ htm: 'POST', htu: endpoint, nonce });
    const res = await fetchBounded(ctx, endpoint, { method: 'POST', ...init }, { what });
    const fresh = dpop?.nonces.set(endpoint, res.headers.get('dpop-nonce') ?? undefined);
    const json = parseObject(res.text);
    if (!res.ok) {
      const error = typeof json?.error === 'string' ? json.error : undefined;
      // RFC 9449 8: the server wants its nonce in the proof. Once, and only for a new one:
      // a server that refuses the nonce it just gave cannot be satisfied by retrying.
      if (error === 'use_dpop_nonce' && dpop && attempt === 0 && fresh && fresh !== nonce) continue;
      const description =
        typeof json?.error_description === 'string' ? `: ${json.error_description}` : '';
      throw new AuthError(
        hide(
          `${ctx.label}: ${what}: the token endpoint answered ${res.status}${error ? ` ${showValue(error)}` : ''}${showValue(description)}${error === 'use_dpop_nonce' ? (dpop ? '; it refused the DPoP nonce it asked for, or gave none' : '; it wants a DPoP proof, and this client sent none') : ''}`,
        ),
        error,
      );
    }
    if (!json || typeof json.access_token !== 'string')
      throw new AuthError(`${ctx.label}: ${what}: the token endpoint's answer has no access_token`);
    secrets?.remember(json.access_token);
    if (typeof json.refresh_token === 'string') secrets?.remember(json.refresh_token);
    if (typeof json.id_token === 'string') secrets?.remember(json.id_token);
    return json as TokenResponse;
  }
}

/** The body and headers of a token request for `auth`. */
async function requestOf(
  params: Record<string, string | undefined>,
  auth: ClientAuth,
  secrets: RequestContext['secrets'],
): Promise<{ headers: Record<string, string>; body: string }> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) body.set(k, v);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  switch (auth.method) {
    case 'none':
      body.set('client_id', auth.clientId);
      break;
    case 'client_secret_post':
      secrets?.remember(auth.clientSecret);
      body.set('client_id', auth.clientId);
      body.set('client_secret', auth.clientSecret);
      break;
    case 'client_secret_basic':
      secrets?.remember(auth.clientSecret);
      // RFC 6749 2.3.1: form-encode both parts before Base64.
      headers.authorization = `Basic ${Buffer.from(`${formEncode(auth.clientId)}:${formEncode(auth.clientSecret)}`).toString('base64')}`;
      break;
    case 'private_key_jwt': {
      const assertion = await auth.assertion();
      secrets?.remember(assertion);
      body.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      body.set('client_assertion', assertion);
      break;
    }
    case 'assertion-only':
      break;
  }
  return { headers, body: body.toString() };
}

/** A token response as stored, with the absolute expiry. */
export function toStored(response: TokenResponse, previous?: StoredTokens): StoredTokens {
  const tokens: StoredTokens = {
    access_token: response.access_token,
    token_type: response.token_type ?? 'Bearer',
  };
  // A server that does not rotate keeps the refresh token we had.
  const refresh = response.refresh_token ?? previous?.refresh_token;
  if (refresh) tokens.refresh_token = refresh;
  const expiresAt = expiresAtOf(response.expires_in);
  if (expiresAt !== undefined) tokens.expires_at = expiresAt;
  const scope = response.scope ?? previous?.scope;
  if (scope) tokens.scope = scope;
  return tokens;
}

/**
 * The longest lifetime believed, in seconds (one year). A larger `expires_in` is clamped to
 * it: a token the client thinks never expires would never be renewed before a refusal.
 */
export const MAX_TOKEN_LIFETIME_S = 365 * 24 * 3600;

/**
 * The absolute expiry (ms since the epoch) of a token whose response said `expiresIn`, or
 * undefined when it said nothing usable. RFC 6749 5.1 makes it a number of seconds; some
 * servers send it as a string of digits, which is taken too. A negative number, NaN,
 * Infinity (JSON's `1e400` parses to it), other strings and other types count as absent, as
 * if the server had not said (the token is then renewed when refused); a huge lifetime is
 * clamped to `MAX_TOKEN_LIFETIME_S`.
 */
export function expiresAtOf(expiresIn: unknown, now = Date.now()): number | undefined {
  let seconds: number;
  if (typeof expiresIn === 'number') seconds = expiresIn;
  else if (typeof expiresIn === 'string' && /^[0-9]{1,15}$/.test(expiresIn.trim()))
    seconds = Number(expiresIn.trim());
  else return undefined;
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return now + Math.min(seconds, MAX_TOKEN_LIFETIME_S) * 1000;
}

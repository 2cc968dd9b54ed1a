import type { AuthInfo } from '@mcpkit/jsonrpc';
import { McpkitError } from '@mcpkit/jsonrpc';
import { type BodyChunks, readBodyLimited } from '@mcpkit/jsonrpc/internal';
import type { IdentityConfig } from '../compose/config.js';

/** A header value from an identity: visible ASCII kept, anything else percent-encoded. */
function headerValue(value: string): string {
  return /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value)
    ? value
    : encodeURIComponent(value);
}

/** A token exchange for a backend that failed: the server, the HTTP status, the OAuth error. */
export class TokenExchangeError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.TokenExchangeError';
  override readonly name: string = 'TokenExchangeError';
  constructor(
    readonly server: string,
    readonly status: number | undefined,
    readonly oauthError: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('MCPKIT_GATEWAY_TOKEN_EXCHANGE', message, options);
  }
}

/** The largest token endpoint answer read. */
const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
/** A cached exchanged token is not used in its last seconds. */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * How each backend is told who calls (`access.identity`): headers with the subject and
 * client id, or an RFC 8693 token exchange of the caller's token for one with the backend's
 * audience (cached per server and caller token until it expires, never past the caller's
 * token). The caller's own token is never passed on.
 */
export class UpstreamIdentity {
  private readonly exchanged = new Map<string, { token: string; until: number }>();

  constructor(
    private readonly config: Readonly<Record<string, IdentityConfig>>,
    private readonly timeoutMs = 10_000,
  ) {}

  has(server: string): boolean {
    return Object.hasOwn(this.config, server);
  }

  /** The headers for one call of `server` by `auth`; undefined when it gets none. */
  headers(
    server: string,
    auth: AuthInfo | undefined,
  ): Record<string, string> | undefined | Promise<Record<string, string>> {
    const config = Object.hasOwn(this.config, server) ? this.config[server] : undefined;
    if (!config) return undefined;
    if ('header' in config) {
      const out: Record<string, string> = {};
      if (auth?.subject !== undefined) out[config.header.toLowerCase()] = headerValue(auth.subject);
      if (config.clientIdHeader !== undefined && auth?.clientId !== undefined)
        out[config.clientIdHeader.toLowerCase()] = headerValue(auth.clientId);
      return out;
    }
    return this.exchange(server, config.tokenExchange, auth).then((token) => ({
      authorization: `Bearer ${token}`,
    }));
  }

  private async exchange(
    server: string,
    te: Extract<IdentityConfig, { tokenExchange: unknown }>['tokenExchange'],
    auth: AuthInfo | undefined,
  ): Promise<string> {
    // Only a token an authorization server issued can be exchanged (not the static one).
    if (!auth || auth.kind === 'static-token' || !auth.token || auth.subject === undefined)
      throw new TokenExchangeError(
        server,
        undefined,
        undefined,
        `mcpkit gateway: server "${server}" takes the caller's identity by token exchange, and this caller has no token from an authorization server`,
      );
    // Per token, not per subject: another token of the same subject (another client, other
    // scopes, an earlier expiry) gets an exchange of its own, never this one's answer.
    const key = `${server}\u0000${auth.token}`;
    const cached = this.exchanged.get(key);
    const now = Date.now();
    if (cached && cached.until > now) return cached.token;
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: auth.token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      audience: te.audience,
      ...(te.scope !== undefined ? { scope: te.scope } : {}),
    });
    const basic = Buffer.from(
      `${encodeURIComponent(te.clientId)}:${encodeURIComponent(te.clientSecret)}`,
    ).toString('base64');
    let res: Response;
    try {
      res = await fetch(te.tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          authorization: `Basic ${basic}`,
        },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new TokenExchangeError(
        server,
        undefined,
        undefined,
        `mcpkit gateway: the token exchange for server "${server}" failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const text = await readBounded(res);
    let answer: Record<string, unknown> = {};
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {}
    const token = answer.access_token;
    if (!res.ok || typeof token !== 'string' || token === '') {
      const oauthError = typeof answer.error === 'string' ? answer.error : undefined;
      throw new TokenExchangeError(
        server,
        res.status,
        oauthError,
        `mcpkit gateway: the token exchange for server "${server}" was refused (HTTP ${res.status}${oauthError ? `, ${oauthError}` : ''})`,
      );
    }
    const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : 60;
    const until = now + expiresIn * 1000 - EXPIRY_MARGIN_MS;
    // Never beyond the caller's own token.
    const callerUntil = auth.expiresAt === undefined ? Infinity : auth.expiresAt * 1000;
    const bounded = Math.min(until, callerUntil);
    if (bounded > now) {
      if (this.exchanged.size >= 10_000) this.exchanged.clear();
      this.exchanged.set(key, { token, until: bounded });
    }
    return token;
  }
}

/** The answer's text, or '' when it is over the limit or breaks off (then refused as unreadable). */
function readBounded(res: Response): Promise<string> {
  if (!res.body) return Promise.resolve('');
  return readBodyLimited(
    res.body as unknown as BodyChunks,
    MAX_TOKEN_RESPONSE_BYTES,
    () => new RangeError('token response too large'),
  ).catch(() => '');
}

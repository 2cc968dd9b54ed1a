import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { decodeJwt } from 'jose';
import { AuthError } from './errors.js';
import { BaseProvider, type ProviderOptions } from './provider.js';
import type { StoredTokens } from './store.js';
import type { ClientAuth } from './token-endpoint.js';
import type { BearerChallenge } from './www-authenticate.js';

/** Where the workload's own token comes from. */
export type WorkloadTokenSource =
  /** A file the platform keeps current (a Kubernetes projected token, a SPIFFE JWT-SVID). */
  | { path: string }
  /** Anything else: called each time a new access token is needed. */
  | (() => string | Promise<string>);

export interface WorkloadIdentityOptions extends ProviderOptions {
  /** The workload token (a JWT issued by the platform), read anew for each grant. */
  workloadToken: WorkloadTokenSource;
  /**
   * This client's id at the authorization server, where it wants one (sent with the
   * `none` method). The workload token alone identifies the client otherwise.
   */
  clientId?: string;
  scopes?: string[];
  /** Largest workload token file read. Default 64 KiB. */
  maxTokenBytes?: number;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** OAuth errors that mean this workload token will never be accepted as it is. */
const FINAL_ERRORS = new Set(['invalid_grant', 'invalid_scope', 'unauthorized_client']);

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Workload identity federation (the MCP `io.modelcontextprotocol/auth/wif` extension,
 * RFC 7523): the workload's platform-issued JWT is the authorization grant, exchanged at
 * the MCP server's authorization server for an access token with the JWT-bearer grant.
 * No browser, no registration, no client secret. The token is read anew for every grant,
 * so a rotated file is picked up. A grant the server refuses is not retried with the same
 * workload token: the refusal stands until the platform rotates it.
 */
export class WorkloadIdentityProvider extends BaseProvider {
  declare protected readonly options: WorkloadIdentityOptions;
  /** The refusal of the last workload token the server refused, by its digest. */
  private refused: { digest: string; error: AuthError } | undefined;

  constructor(options: WorkloadIdentityOptions) {
    super(options);
    const source = options.workloadToken;
    if (typeof source !== 'function' && typeof source?.path !== 'string')
      throw new TypeError('workloadToken must be { path } or a function that returns the token');
    if (
      options.maxTokenBytes !== undefined &&
      !(Number.isInteger(options.maxTokenBytes) && options.maxTokenBytes > 0)
    )
      throw new TypeError(`maxTokenBytes must be a positive integer, not ${options.maxTokenBytes}`);
  }

  protected async refreshOrRenew(
    _current: StoredTokens | undefined,
    bearer: BearerChallenge | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const assertion = await this.workloadToken();
    const seen = digest(assertion);
    if (this.refused?.digest === seen) throw this.refused.error;
    const d = await this.discovery(bearer?.resourceMetadata, signal);
    const m = d.metadata;
    const auth: ClientAuth = this.options.clientId
      ? { method: 'none', clientId: this.options.clientId }
      : { method: 'assertion-only' };
    try {
      const tokens = await this.grant(
        d,
        {
          grant_type: JWT_BEARER,
          assertion,
          resource: d.resource,
          scope: this.scopeParam(bearer, this.options.scopes, d),
        },
        auth,
        'JWT bearer grant (workload identity)',
        signal,
      );
      this.refused = undefined;
      await this.saveTokens(m.issuer, tokens);
      this.log('token issued (workload identity)');
    } catch (error) {
      if (AuthError.isInstance(error) && error.oauthError && FINAL_ERRORS.has(error.oauthError)) {
        const final = this.fail(
          `${error.message.replace(`${this.label}: `, '')}; the authorization server refused this workload token (${error.oauthError}), and it is not presented again until it changes: check the trust policy for this workload at the authorization server`,
          error.oauthError,
          error,
        );
        this.refused = { digest: seen, error: final };
        throw final;
      }
      throw error;
    }
  }

  /** The workload token now: read from its file, or from the callback; checked to be a JWT. */
  private async workloadToken(): Promise<string> {
    const source = this.options.workloadToken;
    const where = typeof source === 'function' ? 'the workload token callback' : source.path;
    let text: string;
    try {
      text = typeof source === 'function' ? await source() : await this.readTokenFile(source.path);
    } catch (cause) {
      if (AuthError.isInstance(cause)) throw cause;
      throw this.fail(
        `could not read the workload token from ${where}: ${(cause as Error).message}; check that the platform mounts it there`,
        undefined,
        cause,
      );
    }
    const token = typeof text === 'string' ? text.trim() : '';
    if (!JWT_SHAPE.test(token))
      throw this.fail(
        `the workload token from ${where} is not a JWT (three base64url parts); check what the platform writes there`,
      );
    this.secrets.remember(token);
    let exp: unknown;
    try {
      exp = decodeJwt(token).exp;
    } catch {
      throw this.fail(`the workload token from ${where} is not a readable JWT`);
    }
    // Not presented when it has expired: the platform should have rotated it by now.
    if (typeof exp === 'number' && exp * 1000 <= Date.now())
      throw this.fail(
        `the workload token from ${where} expired at ${new Date(exp * 1000).toISOString()}; the platform has not rotated it`,
      );
    return token;
  }

  /** Reads at most `maxTokenBytes` (64 KiB) of the token file. */
  private async readTokenFile(path: string): Promise<string> {
    const limit = this.options.maxTokenBytes ?? 64 * 1024;
    const file = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(limit + 1);
      let size = 0;
      for (;;) {
        const { bytesRead } = await file.read(buffer, size, limit + 1 - size, null);
        if (bytesRead === 0) break;
        size += bytesRead;
        if (size > limit)
          throw this.fail(
            `the workload token file ${path} holds more than ${limit} bytes; no workload token is that large`,
          );
      }
      return buffer.subarray(0, size).toString('utf8');
    } finally {
      await file.close();
    }
  }
}

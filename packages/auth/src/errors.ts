import { McpkitError, type McpkitErrorOptions } from '@mcpkit/jsonrpc';

/** Codes of the errors `@mcpkit/auth` throws (their `code`). */
export const AuthErrorCode = {
  /** The server needs the user to authorize, and this context cannot ask them. */
  NeedsAuth: 'MCPKIT_NEEDS_AUTH',
  /** Discovery, registration, the authorization response or the token endpoint failed. */
  Auth: 'MCPKIT_AUTH_ERROR',
  /** An endpoint from metadata, a challenge or config is not a URL this client will use. */
  UnsafeEndpoint: 'MCPKIT_AUTH_UNSAFE_ENDPOINT',
  /** A metadata document, registration or token response was larger than its limit. */
  ResponseTooLarge: 'MCPKIT_AUTH_RESPONSE_TOO_LARGE',
  /** A step of enterprise-managed authorization (XAA) failed; `XaaError.stage` says which. */
  Xaa: 'MCPKIT_AUTH_XAA',
  /** A `headersHelper` command failed, timed out or printed something else. */
  HeadersHelper: 'MCPKIT_HEADERS_HELPER',
} as const;
export type AuthErrorCode = (typeof AuthErrorCode)[keyof typeof AuthErrorCode];

// Each class gets its own brand from the base class (`McpkitError`), so
// `AuthError.isInstance(unsafeEndpointError)` holds and no two unrelated classes match.

/**
 * The server needs authorization that only the user can give (a browser sign-in), and
 * the provider is not interactive. A host shows the server as `needs-auth` and offers its
 * own way to sign in.
 */
export class NeedsAuthError extends McpkitError {
  static readonly brand: string = '@mcpkit/auth.NeedsAuthError';
  override readonly name: string = 'NeedsAuthError';
  readonly server: string;
  constructor(message: string, server: string, options?: McpkitErrorOptions) {
    super(AuthErrorCode.NeedsAuth, message, options);
    this.server = server;
  }
}

/** An OAuth step failed: the message says which, against which server, and what to do. */
export class AuthError extends McpkitError {
  static readonly brand: string = '@mcpkit/auth.AuthError';
  override readonly name: string = 'AuthError';
  /** The OAuth `error` code the server sent, when it sent one (`invalid_grant`, …). */
  readonly oauthError: string | undefined;
  constructor(
    message: string,
    oauthError?: string,
    options?: McpkitErrorOptions & { code?: AuthErrorCode },
  ) {
    super(options?.code ?? AuthErrorCode.Auth, message, options);
    this.oauthError = oauthError;
  }
}

/**
 * An endpoint (from protected-resource metadata, authorization-server metadata, OpenID
 * configuration, a `WWW-Authenticate` challenge or config) is not an `https:` URL, or an
 * `http:` one on a loopback host, without user info. Nothing was sent to it or opened.
 */
export class UnsafeEndpointError extends AuthError {
  static override readonly brand: string = '@mcpkit/auth.UnsafeEndpointError';
  override readonly name: string = 'UnsafeEndpointError';
  /** Where the value came from, e.g. `authorization_endpoint`. */
  readonly field: string;
  /** The refused value, redacted and cut short (safe to print). */
  readonly value: string;
  constructor(message: string, field: string, value: string, options?: McpkitErrorOptions) {
    super(message, undefined, { ...options, code: AuthErrorCode.UnsafeEndpoint });
    this.field = field;
    this.value = value;
  }
}

/** A response body was larger than the limit for its kind; the rest was not read. */
export class AuthResponseTooLargeError extends AuthError {
  static override readonly brand: string = '@mcpkit/auth.AuthResponseTooLargeError';
  override readonly name: string = 'AuthResponseTooLargeError';
  readonly limitBytes: number;
  /** The URL that answered (redacted). */
  readonly url: string;
  constructor(message: string, limitBytes: number, url: string, options?: McpkitErrorOptions) {
    super(message, undefined, { ...options, code: AuthErrorCode.ResponseTooLarge });
    this.limitBytes = limitBytes;
    this.url = url;
  }
}

/** A `headersHelper` command could not supply headers. */
export class HeadersHelperError extends McpkitError {
  static readonly brand: string = '@mcpkit/auth.HeadersHelperError';
  override readonly name: string = 'HeadersHelperError';
  constructor(message: string, options?: McpkitErrorOptions) {
    super(AuthErrorCode.HeadersHelper, message, options);
  }
}

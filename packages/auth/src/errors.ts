import { McpkitError, type McpkitErrorOptions } from '@mcpkit/jsonrpc';

/** Codes of the errors `@mcpkit/auth` throws (their `code`). */
export const AuthErrorCode = {
  /** The server needs the user to authorize, and this context cannot ask them. */
  NeedsAuth: 'MCPKIT_NEEDS_AUTH',
  /** Discovery, registration, the authorization response or the token endpoint failed. */
  Auth: 'MCPKIT_AUTH_ERROR',
  /** A `headersHelper` command failed, timed out or printed something else. */
  HeadersHelper: 'MCPKIT_HEADERS_HELPER',
} as const;

/**
 * The server needs authorization that only the user can give (a browser sign-in), and
 * the provider is not interactive. A host shows the server as `needs-auth`; the CLI says
 * to run `mcpkit login <server>`.
 */
export class NeedsAuthError extends McpkitError {
  override readonly name = 'NeedsAuthError';
  readonly server: string;
  constructor(message: string, server: string, options?: McpkitErrorOptions) {
    super(AuthErrorCode.NeedsAuth, message, options);
    this.server = server;
  }
  static override isInstance(value: unknown): value is NeedsAuthError {
    return McpkitError.isInstance(value) && value.code === AuthErrorCode.NeedsAuth;
  }
}

/** An OAuth step failed: the message says which, against which server, and what to do. */
export class AuthError extends McpkitError {
  override readonly name = 'AuthError';
  /** The OAuth `error` code the server sent, when it sent one (`invalid_grant`, …). */
  readonly oauthError: string | undefined;
  constructor(message: string, oauthError?: string, options?: McpkitErrorOptions) {
    super(AuthErrorCode.Auth, message, options);
    this.oauthError = oauthError;
  }
  static override isInstance(value: unknown): value is AuthError {
    return McpkitError.isInstance(value) && value.code === AuthErrorCode.Auth;
  }
}

/** A `headersHelper` command could not supply headers. */
export class HeadersHelperError extends McpkitError {
  override readonly name = 'HeadersHelperError';
  constructor(message: string, options?: McpkitErrorOptions) {
    super(AuthErrorCode.HeadersHelper, message, options);
  }
  static override isInstance(value: unknown): value is HeadersHelperError {
    return McpkitError.isInstance(value) && value.code === AuthErrorCode.HeadersHelper;
  }
}

import { ErrorCode, McpkitError, RpcError } from '@mcpkit/jsonrpc';

/** The server answered `initialize` with a protocol version this client does not speak. */
export class UnsupportedProtocolVersionError extends McpkitError {
  override readonly name = 'UnsupportedProtocolVersionError';
  readonly serverVersion: string;
  readonly supportedVersions: readonly string[];
  constructor(label: string, serverVersion: string, supportedVersions: readonly string[]) {
    super(
      ErrorCode.UnsupportedProtocolVersion,
      `${label}: server chose protocol version "${serverVersion}", which this client does not support (supported: ${supportedVersions.join(', ')}); upgrade mcpkit or pin a version the server accepts`,
    );
    this.serverVersion = serverVersion;
    this.supportedVersions = supportedVersions;
  }
}

/** A server's answer did not match the protocol schema. */
export class InvalidResultError extends McpkitError {
  override readonly name = 'InvalidResultError';
  readonly method: string;
  constructor(label: string, method: string, detail: string, cause: unknown) {
    super(ErrorCode.Protocol, `${label}: invalid "${method}" result from the server: ${detail}`, {
      cause,
    });
    this.method = method;
  }
}

/** One out-of-band interaction the server needs from the user before it can proceed. */
export interface UrlElicitation {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
}

/**
 * The server answered -32042: the user must first complete the interactions at these URLs
 * (sign in, consent, pay…). Open them, then retry the request.
 */
export class UrlElicitationRequiredError extends RpcError {
  override readonly name = 'UrlElicitationRequiredError';
  readonly elicitations: UrlElicitation[];
  constructor(source: RpcError) {
    super(source.rpcCode, source.rpcMessage, source.data, source.context);
    const data = source.data as { elicitations?: unknown } | undefined;
    this.elicitations = Array.isArray(data?.elicitations)
      ? (data.elicitations as UrlElicitation[])
      : [];
  }
}

/** Turns -32042 into `UrlElicitationRequiredError`; other errors pass unchanged. */
export function mapRpcError(error: unknown): never {
  if (RpcError.isInstance(error) && error.rpcCode === -32042)
    throw new UrlElicitationRequiredError(error);
  throw error;
}

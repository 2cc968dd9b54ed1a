import { ErrorCode, McpkitError } from '@mcpkit/jsonrpc';

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

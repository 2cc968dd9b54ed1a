import { ErrorCode, HttpError, McpkitError, RpcError, UnauthorizedError } from '@mcpkit/jsonrpc';
import { isRecord } from '@mcpkit/jsonrpc/internal';
import {
  type ClientCapabilities,
  type Era,
  eraOf,
  type Implementation,
  type LoggingLevel,
  McpErrorCode,
  MetaKey,
} from '@mcpkit/protocol';

/** What a client learned of a server's era, kept per server (see `McpClientOptions.eraCache`). */
export interface EraRecord {
  era: Era;
  version: string;
}

/**
 * The era answers every client shares by default, keyed by the transport's `eraKey` (an
 * HTTP endpoint). The 2026-07-28 versioning rules ask clients to cache them per server.
 */
export const sharedEraCache = new Map<string, EraRecord>();

/** JSON-RPC errors only a 2026-07-28 server sends: the server is modern, whatever else failed. */
const MODERN_ERRORS: ReadonlySet<number> = new Set([
  McpErrorCode.HeaderMismatch,
  McpErrorCode.MissingRequiredClientCapability,
  McpErrorCode.UnsupportedProtocolVersion,
]);

/** The era of a version a host or server named: protocol's one rule (`eraOf`). */
export function versionEra(version: string): Era | undefined {
  return eraOf(version);
}

export function isModernError(error: unknown): error is RpcError {
  return RpcError.isInstance(error) && MODERN_ERRORS.has(error.rpcCode);
}

/** `data.supported` of an UnsupportedProtocolVersionError, as far as it is well formed. */
export function supportedOf(error: RpcError): string[] {
  const data = error.data as { supported?: unknown } | undefined;
  return Array.isArray(data?.supported)
    ? data.supported.filter((v): v is string => typeof v === 'string')
    : [];
}

/** The newest version both sides speak, skipping `exclude`. */
export function pickVersion(
  ours: readonly string[],
  theirs: readonly string[],
  exclude: ReadonlySet<string> = new Set(),
): string | undefined {
  let best: string | undefined;
  for (const v of theirs) {
    if (!ours.includes(v) || exclude.has(v)) continue;
    if (best === undefined || v > best) best = v;
  }
  return best;
}

/**
 * Whether a failed `server/discover` probe says "this is a handshake-era server": the
 * stdio and HTTP backward-compatibility rules of 2026-07-28. Errors that say something
 * else (authorization, an unreachable host, a closed connection) are not a verdict.
 */
export function meansLegacyServer(error: unknown): boolean {
  if (UnauthorizedError.isInstance(error)) return false;
  if (HttpError.isInstance(error)) return error.status >= 400;
  if (RpcError.isInstance(error)) return !MODERN_ERRORS.has(error.rpcCode);
  // A silent legacy server lets the probe time out.
  return McpkitError.isInstance(error) && error.code === ErrorCode.Timeout;
}

/** The reserved `_meta` of every 2026-07-28 request. */
export function requestMeta(
  version: string,
  capabilities: ClientCapabilities,
  clientInfo: Implementation,
  logLevel: LoggingLevel | undefined,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    [MetaKey.ProtocolVersion]: version,
    [MetaKey.ClientCapabilities]: capabilities,
    [MetaKey.ClientInfo]: clientInfo,
  };
  if (logLevel) meta[MetaKey.LogLevel] = logLevel;
  return meta;
}

/** A 2026-07-28 interim result: the server needs input before it can finish. */
export function isInputRequired(raw: unknown): raw is {
  resultType: 'input_required';
  inputRequests?: Record<string, { method: string; params?: unknown }>;
  requestState?: string;
} {
  return isRecord(raw) && raw.resultType === 'input_required';
}

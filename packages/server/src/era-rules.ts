import type { ClientCapabilities, Implementation, LoggingLevel } from '@mcpkit/protocol';
import { MetaKey, MODERN_VERSIONS } from '@mcpkit/protocol';
import { invalidParams, unsupportedVersion } from './errors.js';

/** The rules that tell the eras apart: methods, log levels, the 2026-07-28 request `_meta`. */

export const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Methods 2026-07-28 removed: a modern request for them is -32601. */
export const REMOVED_IN_MODERN = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

export const FEATURE_METHODS = [
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
  // The tasks extension (McpServerOptions.tasks); method not found without it.
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
];
export const SESSION_METHODS = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'server/discover',
  'subscriptions/listen',
];

export interface ModernMeta {
  version: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: Implementation | undefined;
  logLevel: LoggingLevel | undefined;
}

export function readModernMeta(
  meta: Record<string, unknown> | undefined,
  versions: readonly string[],
): ModernMeta {
  const version = meta?.[MetaKey.ProtocolVersion];
  const caps = meta?.[MetaKey.ClientCapabilities];
  if (
    typeof version !== 'string' ||
    typeof caps !== 'object' ||
    caps === null ||
    Array.isArray(caps)
  ) {
    throw invalidParams(
      `Invalid params: a request needs _meta with "${MetaKey.ProtocolVersion}" and "${MetaKey.ClientCapabilities}" (2026-07-28), or an initialize handshake first (2025 revisions)`,
    );
  }
  const modern = versions.filter((v) => (MODERN_VERSIONS as readonly string[]).includes(v));
  if (!modern.includes(version as never)) throw unsupportedVersion(version, versions);
  const level = meta?.[MetaKey.LogLevel];
  return {
    version,
    clientCapabilities: caps as ClientCapabilities,
    clientInfo: meta?.[MetaKey.ClientInfo] as Implementation | undefined,
    logLevel: LEVELS.includes(level as LoggingLevel) ? (level as LoggingLevel) : undefined,
  };
}

export const CLIENT_CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Results that carry 2026-07-28 caching hints. */
export const CACHEABLE = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** Every 2026-07-28 result says what it is. */
export function complete(result: unknown): unknown {
  const r = (result ?? {}) as Record<string, unknown>;
  return r.resultType === undefined ? { resultType: 'complete', ...r } : r;
}

/** Capabilities as a handshake-era revision knows them. */
export function legacyCapabilities(
  caps: Record<string, unknown>,
  version: string,
): Record<string, unknown> {
  const out = { ...caps };
  if (version < '2025-03-26') delete out.completions;
  delete out.extensions;
  return out;
}

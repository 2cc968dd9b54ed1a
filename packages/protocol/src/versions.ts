/** Every published protocol revision, oldest first. */
export const PROTOCOL_VERSIONS = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25',
  '2026-07-28',
] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** Revisions that use the `initialize` handshake and sessions. */
export const LEGACY_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

/** Stateless revisions (`server/discover`, per-request `_meta`). */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];

export const LATEST_LEGACY_VERSION: LegacyVersion = '2025-11-25';
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2026-07-28';

export type Era = 'legacy' | 'modern';

export function isProtocolVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

export function isLegacyVersion(value: unknown): value is LegacyVersion {
  return typeof value === 'string' && (LEGACY_VERSIONS as readonly string[]).includes(value);
}

const REVISION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The era of a revision: the one rule every package uses. A revision this package knows has
 * its own era; one dated after the newest known counts as modern (stateless), so a host may
 * offer it and the server's -32022 answer brings both sides to one they share; anything
 * else is no revision at all (`undefined`).
 */
export function eraOf(version: ProtocolVersion): Era;
export function eraOf(version: string): Era | undefined;
export function eraOf(version: string): Era | undefined {
  if (isProtocolVersion(version))
    return (MODERN_VERSIONS as readonly string[]).includes(version) ? 'modern' : 'legacy';
  return REVISION.test(version) && compareVersions(version, LATEST_PROTOCOL_VERSION) > 0
    ? 'modern'
    : undefined;
}

/** Compares revisions by date: negative when `a` is older. */
export function compareVersions(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Which revision introduced what, for code that must behave by version. Each value is
 * the first revision that has the feature.
 */
export const FEATURE_SINCE = {
  audioContent: '2025-03-26',
  toolAnnotations: '2025-03-26',
  completions: '2025-03-26',
  progressMessage: '2025-03-26',
  protocolVersionHeader: '2025-06-18',
  structuredContent: '2025-06-18',
  outputSchema: '2025-06-18',
  resourceLinks: '2025-06-18',
  elicitation: '2025-06-18',
  titles: '2025-06-18',
  icons: '2025-11-25',
  tasks: '2025-11-25',
  urlElicitation: '2025-11-25',
  samplingTools: '2025-11-25',
  serverDiscover: '2026-07-28',
} as const satisfies Record<string, ProtocolVersion>;

export function supports(version: ProtocolVersion, feature: keyof typeof FEATURE_SINCE): boolean {
  return compareVersions(version, FEATURE_SINCE[feature]) >= 0;
}

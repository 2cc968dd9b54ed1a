import { type JsonRpcPeer, McpkitError, RpcError, TimeoutError } from '@mcpkit/jsonrpc';
import {
  ClientMethod,
  type DiscoverResult,
  fastInitializeResult,
  isLegacyVersion,
  McpErrorCode,
  Notification,
} from '@mcpkit/protocol';
import { instrumented } from './client-instrumentation.js';
import type { ConnectSteps } from './connect-budget.js';
import type { Connection } from './connection.js';
import { ClientErrorCode, InvalidResultError, UnsupportedProtocolVersionError } from './errors.js';
import { mcpTransportOf } from './mcp-transport-of.js';
import {
  type EraRecord,
  isModernError,
  meansLegacyServer,
  pickVersion,
  supportedOf,
  versionEra,
} from './modern.js';
import { clientDefaults } from './options.js';

const isModern = (version: string) => versionEra(version) === 'modern';

type Probe =
  | { discover: DiscoverResult; version: string; legacyVersion?: undefined }
  | { discover?: undefined; legacyVersion: string | undefined };

/**
 * Settles era and version with the server and records them in `conn.server`: the
 * `server/discover` probe (2026-07-28) unless the era is pinned to legacy or known to be,
 * else the `initialize` handshake. The answer is cached per server (`eraKey`).
 */
export async function negotiate(
  conn: Connection,
  peer: JsonRpcPeer,
  steps: ConnectSteps,
): Promise<void> {
  const { options, label } = conn;
  const pinned = options.protocolVersion;
  let era = options.era ?? (pinned ? (isModern(pinned) ? 'modern' : 'legacy') : 'auto');
  if (!conn.versions().some(isModern)) era = 'legacy';
  if (mcpTransportOf(peer).capabilities?.legacyOnly) {
    if (era === 'modern') {
      throw new McpkitError(
        ClientErrorCode.UnsupportedProtocolVersion,
        `${label}: ${mcpTransportOf(peer).description ?? 'this transport'} carries only handshake-era revisions; 2026-07-28 needs stdio or Streamable HTTP`,
      );
    }
    era = 'legacy';
  }
  const key = mcpTransportOf(peer).eraKey;
  const cache = key === undefined ? undefined : conn.eraCache();
  const cached = key === undefined ? undefined : cache?.get(key);

  let legacyVersion: string | undefined;
  if (era !== 'legacy' && cached?.era !== 'legacy') {
    const outcome = await discover(conn, peer, steps, era === 'modern', cached?.version);
    if (outcome.discover) return adoptModern(conn, peer, outcome, key, cache);
    legacyVersion = outcome.legacyVersion;
  }
  try {
    await handshake(conn, peer, steps, legacyVersion ?? cached?.version);
  } catch (error) {
    // The cached "legacy" no longer holds (the server was upgraded): probe afresh.
    if (cached?.era === 'legacy' && era === 'auto' && isModernError(error)) {
      cache?.delete(key!);
      const outcome = await discover(conn, peer, steps, true, undefined);
      if (outcome.discover) return adoptModern(conn, peer, outcome, key, cache);
    }
    throw error;
  }
  if (key !== undefined) cache?.set(key, { era: 'legacy', version: conn.server!.version });
}

function adoptModern(
  conn: Connection,
  peer: JsonRpcPeer,
  outcome: { discover: DiscoverResult; version: string },
  key: string | undefined,
  cache: Map<string, EraRecord> | undefined,
): void {
  conn.server = { era: 'modern', version: outcome.version, discover: outcome.discover };
  conn.setVersion(peer, outcome.version);
  if (key !== undefined) cache?.set(key, { era: 'modern', version: outcome.version });
}

/**
 * The 2026-07-28 probe. Resolves with the discover result and the version to speak; or
 * with no result when the server is of the handshake era (and, if it named one, the
 * legacy version it wants).
 */
async function discover(
  conn: Connection,
  peer: JsonRpcPeer,
  steps: ConnectSteps,
  required: boolean,
  preferred: string | undefined,
): Promise<Probe> {
  const { options, label, checks } = conn;
  const ours = conn.versions();
  const modern = ours.filter(isModern).sort().reverse();
  let version = preferred && modern.includes(preferred) ? preferred : modern[0]!;
  // A server may refuse a version it also lists (the rejection says which it takes):
  // each version gets two tries at most, so that the probe always ends.
  const tries = new Map<string, number>();
  for (;;) {
    tries.set(version, (tries.get(version) ?? 0) + 1);
    const tried = new Set([...tries].filter(([, n]) => n >= 2).map(([v]) => v));
    conn.setVersion(peer, version);
    let raw: unknown;
    const { budget } = steps;
    const probeMs = budget.probeMs(
      options.discoverTimeoutMs ?? clientDefaults.discoverTimeoutMs,
      required,
    );
    try {
      budget.stepMs(ClientMethod.Discover);
      raw = await instrumented(
        conn,
        ClientMethod.Discover,
        { _meta: conn.meta },
        { timeoutMs: probeMs, ...(steps.signal ? { signal: steps.signal } : {}) },
        (params, sendOptions) => peer.request(ClientMethod.Discover, params, sendOptions),
        version,
      );
    } catch (error) {
      mcpTransportOf(peer).setProtocolVersion?.(undefined);
      if (steps.signal?.aborted) throw error;
      if (TimeoutError.isInstance(error)) {
        budget.note(`"server/discover" unanswered for ${probeMs} ms`);
        if (required || budget.remainingMs() <= 0)
          throw budget.expired(ClientMethod.Discover, error);
      }
      if (RpcError.isInstance(error) && error.rpcCode === McpErrorCode.UnsupportedProtocolVersion) {
        const theirs = supportedOf(error);
        const pick = pickVersion(ours, theirs, tried);
        if (pick && isModern(pick)) {
          version = pick;
          continue;
        }
        if (pick && !required) return { legacyVersion: pick };
        throw new UnsupportedProtocolVersionError(label, undefined, ours, theirs);
      }
      if (!required && meansLegacyServer(error)) return { legacyVersion: undefined };
      if (required && meansLegacyServer(error)) {
        throw new McpkitError(
          ClientErrorCode.UnsupportedProtocolVersion,
          `${label}: the server did not answer "server/discover" as a 2026-07-28 server does (${(error as Error).message}); it seems to speak only handshake-era revisions: allow them (era "auto") or connect to a newer server`,
          { cause: error },
        );
      }
      throw error;
    }
    let result: DiscoverResult;
    try {
      result = await checks.check<DiscoverResult>(
        ClientMethod.Discover,
        raw,
        'DiscoverResultSchema',
      );
      if (!checks.enabled && !Array.isArray(result?.supportedVersions))
        throw new InvalidResultError(label, ClientMethod.Discover, 'no supportedVersions', raw);
    } catch (error) {
      // Some handshake-era servers answer any method with an empty result: not a verdict
      // of a 2026-07-28 server, so the handshake decides.
      mcpTransportOf(peer).setProtocolVersion?.(undefined);
      if (!required) return { legacyVersion: undefined };
      throw error;
    }
    const pick = result.supportedVersions.includes(version)
      ? version
      : pickVersion(ours, result.supportedVersions);
    if (pick === undefined)
      throw new UnsupportedProtocolVersionError(label, undefined, ours, result.supportedVersions);
    if (!isModern(pick)) {
      mcpTransportOf(peer).setProtocolVersion?.(undefined);
      if (required)
        throw new UnsupportedProtocolVersionError(
          label,
          undefined,
          modern,
          result.supportedVersions,
        );
      return { legacyVersion: pick };
    }
    return { discover: result, version: pick };
  }
}

/**
 * `initialize`, version check, `notifications/initialized`; records the legacy server in
 * `conn.server`. Also what renews a session the server forgot.
 */
export async function handshake(
  conn: Connection,
  peer: JsonRpcPeer,
  steps: ConnectSteps,
  wanted?: string,
): Promise<void> {
  const { label, options } = conn;
  const supported: string[] = conn.versions().filter((v) => isLegacyVersion(v));
  if (supported.length === 0)
    throw new UnsupportedProtocolVersionError(label, undefined, conn.versions());
  const requested =
    wanted && supported.includes(wanted) ? wanted : [...supported].sort().reverse()[0]!;
  let raw: unknown;
  try {
    raw = await instrumented(
      conn,
      ClientMethod.Initialize,
      {
        protocolVersion: requested,
        capabilities: conn.capabilities,
        clientInfo: options.clientInfo ?? clientDefaults.clientInfo,
      },
      {
        timeoutMs: steps.budget.stepMs(ClientMethod.Initialize),
        ...(steps.signal ? { signal: steps.signal } : {}),
      },
      (params, sendOptions) => peer.request(ClientMethod.Initialize, params, sendOptions),
      requested,
    );
  } catch (error) {
    if (TimeoutError.isInstance(error) && !steps.signal?.aborted)
      throw steps.budget.expired(ClientMethod.Initialize, error);
    throw error;
  }
  const result = await conn.checks.check(
    ClientMethod.Initialize,
    raw,
    'InitializeResultSchema',
    fastInitializeResult,
  );
  if (!supported.includes(result.protocolVersion) || !isLegacyVersion(result.protocolVersion)) {
    throw new UnsupportedProtocolVersionError(label, result.protocolVersion, supported);
  }
  mcpTransportOf(peer).setProtocolVersion?.(result.protocolVersion);
  conn.server = { era: 'legacy', version: result.protocolVersion, init: result };
  await peer.notify(Notification.Initialized);
}

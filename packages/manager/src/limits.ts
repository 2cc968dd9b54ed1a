/** Limits a host may read and override (`limits` option); env variables override the defaults. */
export const managerDefaults = Object.freeze({
  /** stdio and in-process servers connecting at once (`MCP_SERVER_CONNECTION_BATCH_SIZE`). */
  localConcurrency: 3,
  /** Remote servers connecting at once (`MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE`). */
  remoteConcurrency: 20,
  /** One budget for the whole connect, era probe and handshake included (`MCP_TIMEOUT`). */
  connectTimeoutMs: 30_000,
  /** A tool call's budget, reset by progress (`MCP_TOOL_TIMEOUT`). */
  toolTimeoutMs: 100_000_000,
  /** Characters of tool output a host gets before an explicit truncation marker. */
  outputBudgetChars: 100_000,
  /** Characters of tool descriptions and server instructions kept. */
  descriptionChars: 2_048,
  /** Servers whose lists are cached (least recently used ones are dropped first). */
  listCacheServers: 20,
  /** list_changed notifications within this window cause one refetch. */
  listChangedDebounceMs: 300,
  /** ...but a refetch is never delayed longer than this by a stream of notifications. */
  listChangedMaxDelayMs: 2_000,
  /**
   * After a list's fetch failed, reads do not ask the server again for this long (doubled
   * per failure in a row, up to `listRetryMaxMs`); a reconnect or `list_changed` does.
   */
  listRetryMs: 30_000,
  listRetryMaxMs: 10 * 60_000,
  /** How long a "needs sign-in" verdict keeps a server from being retried at connect. */
  needsAuthCacheMs: 15 * 60_000,
  /** Stop a server after this long without a call (0: never). */
  idleStopMs: 0,
  /** Ping idle connections this often (0: never); 2 missed pings count as a drop. */
  pingIntervalMs: 0,
});

export type ManagerLimits = { -readonly [K in keyof typeof managerDefaults]: number };

function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Defaults, then env overrides, then the host's explicit options (which win). */
export function resolveLimits(
  given: Partial<ManagerLimits> | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ManagerLimits {
  const fromEnv: Partial<ManagerLimits> = {};
  const local = positiveInt(env.MCP_SERVER_CONNECTION_BATCH_SIZE);
  if (local) fromEnv.localConcurrency = local;
  const remote = positiveInt(env.MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE);
  if (remote) fromEnv.remoteConcurrency = remote;
  const timeout = positiveInt(env.MCP_TIMEOUT);
  if (timeout) fromEnv.connectTimeoutMs = timeout;
  const tool = positiveInt(env.MCP_TOOL_TIMEOUT);
  if (tool) fromEnv.toolTimeoutMs = tool;
  const out: ManagerLimits = { ...managerDefaults, ...fromEnv };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
      out[key as keyof ManagerLimits] = value;
  }
  return out;
}

import { hostname } from 'node:os';
import type { SessionStore, StoreConfig } from '@mcpkit/gateway';
import { UsageError } from './io.js';

/** The package `--redis` loads when asked (not a dependency of the CLI: most never need it). */
export const REDIS_STORE_PACKAGE = '@mcpkit/gateway-redis';

/** Where `--redis` is read from when the flag is absent (keeps a password off the command line). */
export const REDIS_URL_VARIABLE = 'MCPKIT_REDIS_URL';

export interface ServeStore {
  store: SessionStore;
  replicaId: string;
  /** The URL, its password shown as `***`. */
  shown: string;
  /** Where the URL came from, for the warning about passwords on the command line. */
  source: 'flag' | 'environment' | 'config';
  heartbeatMs: number | undefined;
}

/** `--redis` (and `--replica-id`), else `MCPKIT_REDIS_URL`, else the config's `store`. */
export function storeRequest(
  flags: { redis?: string | undefined; 'replica-id'?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
  config: StoreConfig | undefined,
): { url: string; source: ServeStore['source']; replicaId: string | undefined } | undefined {
  const replicaId = flags['replica-id'];
  if (replicaId !== undefined && !/^[A-Za-z0-9_.:-]{1,64}$/.test(replicaId))
    throw new UsageError(
      `--replica-id takes 1 to 64 characters of [A-Za-z0-9_.:-] (got "${replicaId}")`,
    );
  const fromEnv = env[REDIS_URL_VARIABLE];
  const found =
    flags.redis !== undefined
      ? { url: flags.redis, source: 'flag' as const }
      : fromEnv !== undefined && fromEnv !== ''
        ? { url: fromEnv, source: 'environment' as const }
        : config?.redis !== undefined
          ? { url: config.redis, source: 'config' as const }
          : undefined;
  if (!found) {
    if (replicaId !== undefined)
      throw new UsageError(`--replica-id needs --redis (or ${REDIS_URL_VARIABLE})`);
    return undefined;
  }
  return { ...found, replicaId };
}

/**
 * Opens the Redis session store, loading its package only now. A missing package is a
 * `UsageError` that says which one; a URL it cannot read is one as well.
 */
export async function openServeStore(
  request: NonNullable<ReturnType<typeof storeRequest>>,
  config: StoreConfig | undefined,
  load: (specifier: string) => Promise<unknown> = (specifier) => import(specifier),
): Promise<ServeStore> {
  let loaded: typeof import('@mcpkit/gateway-redis');
  try {
    loaded = (await load(REDIS_STORE_PACKAGE)) as typeof import('@mcpkit/gateway-redis');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(error).includes(REDIS_STORE_PACKAGE))
      throw new UsageError(
        `--redis needs the ${REDIS_STORE_PACKAGE} package, which is not installed: install it where mcpkit is installed (npm install -g ${REDIS_STORE_PACKAGE})`,
      );
    throw error;
  }
  const { RedisSessionStore, RedisUrlError, redactUrl } = loaded;
  const where =
    request.source === 'config'
      ? 'store.redis'
      : request.source === 'flag'
        ? '--redis'
        : REDIS_URL_VARIABLE;
  let store: SessionStore;
  try {
    store = new RedisSessionStore({
      url: request.url,
      ...(config?.prefix !== undefined ? { prefix: config.prefix } : {}),
    });
  } catch (error) {
    if (RedisUrlError.isInstance(error)) throw new UsageError(`${where}: ${error.message}`);
    throw error;
  }
  return {
    store,
    replicaId: request.replicaId ?? `${hostname()}:${process.pid}`,
    shown: redactUrl(request.url),
    source: request.source,
    heartbeatMs: config?.heartbeatMs,
  };
}

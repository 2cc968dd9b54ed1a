import { createRequire } from 'node:module';
import { buildSchemas } from './schemas.js';

type Zod = typeof import('zod').z;
let zod: Zod | undefined;
let built: ReturnType<typeof buildSchemas> | undefined;

/**
 * zod, loaded on first need (an invalid entry's messages, the JSON Schema). It is required
 * synchronously so that the resolver stays synchronous; a valid configuration never gets here.
 */
export function lazyZod(): Zod {
  zod ??= (createRequire(import.meta.url)('zod') as typeof import('zod')).z;
  return zod;
}

/** The zod schemas, built on the lazily loaded zod. */
export function lazySchemas(): ReturnType<typeof buildSchemas> {
  built ??= buildSchemas(lazyZod());
  return built;
}

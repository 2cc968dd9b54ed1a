import { createRequire } from 'node:module';
import { buildSchemas } from './schemas.js';

let built: ReturnType<typeof buildSchemas> | undefined;

/**
 * The zod schemas, built on first need (an invalid entry's messages, the JSON Schema).
 * zod is required synchronously so that the resolver stays synchronous; a valid
 * configuration never gets here.
 */
export function lazySchemas(): ReturnType<typeof buildSchemas> {
  if (!built) {
    const { z } = createRequire(import.meta.url)('zod') as typeof import('zod');
    built = buildSchemas(z);
  }
  return built;
}

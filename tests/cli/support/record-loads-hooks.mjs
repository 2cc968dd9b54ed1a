// Module hooks (run on the loader thread): records each resolved URL.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.MCPKIT_LOAD_LOG) appendFileSync(process.env.MCPKIT_LOAD_LOG, `${result.url}\n`);
  return result;
}

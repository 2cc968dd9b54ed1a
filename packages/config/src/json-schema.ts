import { createRequire } from 'node:module';
import { lazySchemas } from './lazy-schemas.js';

/** The JSON Schema of the `.mcp.json` format, generated from the zod schemas. */
export function mcpJsonSchema(): Record<string, unknown> {
  const { z } = createRequire(import.meta.url)('zod') as typeof import('zod');
  return {
    ...(z.toJSONSchema(lazySchemas().McpJsonFileSchema, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>),
    title: 'MCP servers file (.mcp.json)',
  };
}

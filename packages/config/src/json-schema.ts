import { lazySchemas, lazyZod } from './lazy-schemas.js';

/** The JSON Schema of the `.mcp.json` format, generated from the zod schemas. */
export function mcpJsonSchema(): Record<string, unknown> {
  return {
    ...(lazyZod().toJSONSchema(lazySchemas().McpJsonFileSchema, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>),
    title: 'MCP servers file (.mcp.json)',
  };
}

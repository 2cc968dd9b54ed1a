import { z } from 'zod';
import { McpJsonFileSchema } from './schemas.js';

/** The JSON Schema of the `.mcp.json` format, generated from the zod schemas. */
export function mcpJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(McpJsonFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >),
    title: 'MCP servers file (.mcp.json)',
  };
}

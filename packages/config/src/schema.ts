/**
 * `@mcpkit/config/schema`: the zod schemas of the configuration format, for hosts that
 * validate entries of their own with them. Importing this loads zod; the resolver in the
 * main entry does not.
 */
import { z } from 'zod';
import { buildSchemas } from './schemas.js';

export const {
  HttpServerSchema,
  McpJsonFileSchema,
  OAuthConfigSchema,
  PolicyEntrySchema,
  ProxyServerSchema,
  SdkServerSchema,
  ServerConfigSchema,
  SseIdeServerSchema,
  SseServerSchema,
  StdioServerSchema,
  WsIdeServerSchema,
  WsServerSchema,
} = buildSchemas(z);
export { mcpJsonSchema } from './json-schema.js';

import { z } from 'zod';

/**
 * Server entries of a `.mcp.json`-format file. Each type is its own schema: the resolver
 * picks one by `type` first, so an error names the field that is wrong rather than
 * listing every alternative of a union.
 */

const StringMap = z.record(z.string(), z.string());
const Timeout = z
  .number()
  .int()
  .positive()
  .optional()
  .describe('Per-request timeout in milliseconds');
const Disabled = z.boolean().optional().describe('Keep the entry but never start it');
const common = { timeout: Timeout, disabled: Disabled };

const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\//i.test(v) || /\$\{/.test(v), { message: 'expected an http(s) URL' });
const wsUrl = z
  .string()
  .refine((v) => /^wss?:\/\//i.test(v) || /\$\{/.test(v), { message: 'expected a ws(s) URL' });

export const OAuthConfigSchema = z.object({
  clientId: z.string().min(1).optional(),
  callbackPort: z.number().int().min(1).max(65535).optional(),
  authServerMetadataUrl: z
    .string()
    .refine((v) => /^https:\/\//i.test(v), { message: 'must be an https URL' })
    .optional(),
  scopes: z.array(z.string()).optional(),
  /** Enterprise-managed authorization (token exchange at the identity provider). */
  xaa: z.boolean().optional(),
});

export const StdioServerSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'expected a non-empty command'),
  args: z.array(z.string()).optional(),
  env: StringMap.optional(),
  ...common,
});

const remote = {
  url: httpUrl,
  headers: StringMap.optional(),
  /** A shell command printing a JSON object of headers. */
  headersHelper: z.string().min(1).optional(),
  oauth: OAuthConfigSchema.optional(),
  ...common,
};

export const SseServerSchema = z.object({ type: z.literal('sse'), ...remote });
export const HttpServerSchema = z.object({
  type: z.enum(['http', 'streamable-http']),
  ...remote,
});
export const WsServerSchema = z.object({
  type: z.literal('ws'),
  url: wsUrl,
  headers: StringMap.optional(),
  headersHelper: z.string().min(1).optional(),
  ...common,
});
export const SseIdeServerSchema = z.object({
  type: z.literal('sse-ide'),
  url: httpUrl,
  ideName: z.string().min(1),
  ideRunningInWindows: z.boolean().optional(),
  ...common,
});
export const WsIdeServerSchema = z.object({
  type: z.literal('ws-ide'),
  url: wsUrl,
  ideName: z.string().min(1),
  authToken: z.string().optional(),
  ideRunningInWindows: z.boolean().optional(),
  ...common,
});
/** A server that runs inside the host process, registered by name. */
export const SdkServerSchema = z.object({
  type: z.literal('sdk'),
  name: z.string().min(1),
  ...common,
});
/** A connector reached through a proxy URL, identified by `id`. */
export const ProxyServerSchema = z.object({
  type: z.literal('proxy'),
  url: httpUrl,
  id: z.string().min(1),
  ...common,
});

export const serverSchemasByType = {
  stdio: StdioServerSchema,
  sse: SseServerSchema,
  http: HttpServerSchema,
  'streamable-http': HttpServerSchema,
  ws: WsServerSchema,
  'sse-ide': SseIdeServerSchema,
  'ws-ide': WsIdeServerSchema,
  sdk: SdkServerSchema,
  proxy: ProxyServerSchema,
} as const;

export type ServerType = keyof typeof serverSchemasByType;
export const SERVER_TYPES = Object.keys(serverSchemasByType) as ServerType[];

export const ServerConfigSchema = z.union([
  StdioServerSchema,
  SseServerSchema,
  HttpServerSchema,
  WsServerSchema,
  SseIdeServerSchema,
  WsIdeServerSchema,
  SdkServerSchema,
  ProxyServerSchema,
]);

/** Letters, digits, `-` and `_`. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

export const McpJsonFileSchema = z
  .looseObject({
    mcpServers: z.record(z.string().regex(SERVER_NAME_PATTERN), ServerConfigSchema),
  })
  .describe('MCP servers file (.mcp.json)');

/** Strict: an entry with a misspelt or extra key is an error, never a narrower rule. */
export const PolicyEntrySchema = z.union([
  z.strictObject({ serverName: z.string().min(1) }),
  z.strictObject({ serverCommand: z.array(z.string()).min(1) }),
  z.strictObject({ serverUrl: z.string().min(1) }),
]);

export type StdioServerConfig = z.infer<typeof StdioServerSchema>;
export type SseServerConfig = z.infer<typeof SseServerSchema>;
export type HttpServerConfig = z.infer<typeof HttpServerSchema>;
export type WsServerConfig = z.infer<typeof WsServerSchema>;
export type SseIdeServerConfig = z.infer<typeof SseIdeServerSchema>;
export type WsIdeServerConfig = z.infer<typeof WsIdeServerSchema>;
export type SdkServerConfig = z.infer<typeof SdkServerSchema>;
export type ProxyServerConfig = z.infer<typeof ProxyServerSchema>;
export type ServerConfig = z.infer<typeof ServerConfigSchema>;
export type OAuthConfig = z.infer<typeof OAuthConfigSchema>;
export type PolicyEntry = z.infer<typeof PolicyEntrySchema>;

import type { z as Zod } from 'zod';
import { SERVER_NAME_PATTERN } from './server-types.js';

/**
 * The zod schemas of server entries, built on the zod instance given. They are the
 * reference for `entry-rules.ts` (a test checks that both agree on every generated input),
 * the source of the published JSON Schema, and give the messages of an invalid entry. They
 * are built on demand, so that resolving a valid configuration never loads zod.
 *
 * Each type is its own schema: the resolver picks one by `type` first, so an error names
 * the field that is wrong rather than listing every alternative of a union.
 */
export function buildSchemas(z: typeof Zod) {
  const StringMap = z.record(z.string(), z.string());
  const Timeout = z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Per-request timeout in milliseconds');
  const Disabled = z.boolean().optional().describe('Keep the entry but never start it');
  const common = { timeout: Timeout, disabled: Disabled };

  const httpUrl = z.string().refine((v) => /^https?:\/\//i.test(v) || /\$\{/.test(v), {
    message: 'expected an http(s) URL',
  });
  const wsUrl = z
    .string()
    .refine((v) => /^wss?:\/\//i.test(v) || /\$\{/.test(v), { message: 'expected a ws(s) URL' });

  const OAuthConfigSchema = z.object({
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

  const StdioServerSchema = z.object({
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

  const SseServerSchema = z.object({ type: z.literal('sse'), ...remote });
  const HttpServerSchema = z.object({
    type: z.enum(['http', 'streamable-http']),
    ...remote,
  });
  const WsServerSchema = z.object({
    type: z.literal('ws'),
    url: wsUrl,
    headers: StringMap.optional(),
    headersHelper: z.string().min(1).optional(),
    ...common,
  });
  const SseIdeServerSchema = z.object({
    type: z.literal('sse-ide'),
    url: httpUrl,
    ideName: z.string().min(1),
    ideRunningInWindows: z.boolean().optional(),
    ...common,
  });
  const WsIdeServerSchema = z.object({
    type: z.literal('ws-ide'),
    url: wsUrl,
    ideName: z.string().min(1),
    authToken: z.string().optional(),
    ideRunningInWindows: z.boolean().optional(),
    ...common,
  });
  /** A server that runs inside the host process, registered by name. */
  const SdkServerSchema = z.object({
    type: z.literal('sdk'),
    name: z.string().min(1),
    ...common,
  });
  /** A connector reached through a proxy URL, identified by `id`. */
  const ProxyServerSchema = z.object({
    type: z.literal('proxy'),
    url: httpUrl,
    id: z.string().min(1),
    ...common,
  });

  const serverSchemasByType = {
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

  const ServerConfigSchema = z.union([
    StdioServerSchema,
    SseServerSchema,
    HttpServerSchema,
    WsServerSchema,
    SseIdeServerSchema,
    WsIdeServerSchema,
    SdkServerSchema,
    ProxyServerSchema,
  ]);

  const McpJsonFileSchema = z
    .looseObject({
      mcpServers: z.record(z.string().regex(SERVER_NAME_PATTERN), ServerConfigSchema),
    })
    .describe('MCP servers file (.mcp.json)');

  /** Strict: an entry with a misspelt or extra key is an error, never a narrower rule. */
  const PolicyEntrySchema = z.union([
    z.strictObject({ serverName: z.string().min(1) }),
    z.strictObject({ serverCommand: z.array(z.string()).min(1) }),
    z.strictObject({ serverUrl: z.string().min(1) }),
  ]);
  return {
    OAuthConfigSchema,
    StdioServerSchema,
    SseServerSchema,
    HttpServerSchema,
    WsServerSchema,
    SseIdeServerSchema,
    WsIdeServerSchema,
    SdkServerSchema,
    ProxyServerSchema,
    serverSchemasByType,
    ServerConfigSchema,
    McpJsonFileSchema,
    PolicyEntrySchema,
  };
}

type Schemas = ReturnType<typeof buildSchemas>;

export type StdioServerConfig = Zod.infer<Schemas['StdioServerSchema']>;
export type SseServerConfig = Zod.infer<Schemas['SseServerSchema']>;
export type HttpServerConfig = Zod.infer<Schemas['HttpServerSchema']>;
export type WsServerConfig = Zod.infer<Schemas['WsServerSchema']>;
export type SseIdeServerConfig = Zod.infer<Schemas['SseIdeServerSchema']>;
export type WsIdeServerConfig = Zod.infer<Schemas['WsIdeServerSchema']>;
export type SdkServerConfig = Zod.infer<Schemas['SdkServerSchema']>;
export type ProxyServerConfig = Zod.infer<Schemas['ProxyServerSchema']>;
export type ServerConfig = Zod.infer<Schemas['ServerConfigSchema']>;
export type OAuthConfig = Zod.infer<Schemas['OAuthConfigSchema']>;
export type PolicyEntry = Zod.infer<Schemas['PolicyEntrySchema']>;

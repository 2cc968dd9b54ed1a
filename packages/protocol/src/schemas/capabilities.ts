import { z } from 'zod';
import { ImplementationSchema, ResultSchema } from './base.js';

const Flag = z.looseObject({});
const ListChanged = z.looseObject({ listChanged: z.boolean().optional() });

export const ClientCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), z.looseObject({})).optional(),
  roots: ListChanged.optional(),
  sampling: z.looseObject({ context: Flag.optional(), tools: Flag.optional() }).optional(),
  elicitation: z.looseObject({ form: Flag.optional(), url: Flag.optional() }).optional(),
  tasks: z.looseObject({}).optional(),
  /** 2026-07-28: extension identifier → its settings. */
  extensions: z.record(z.string(), z.looseObject({})).optional(),
});

export const ServerCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), z.looseObject({})).optional(),
  logging: Flag.optional(),
  completions: Flag.optional(),
  prompts: ListChanged.optional(),
  resources: z
    .looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() })
    .optional(),
  tools: ListChanged.optional(),
  tasks: z.looseObject({}).optional(),
  /** 2026-07-28: extension identifier → its settings. */
  extensions: z.record(z.string(), z.looseObject({})).optional(),
});

export const InitializeRequestParamsSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ClientCapabilitiesSchema,
  clientInfo: ImplementationSchema,
});

export const InitializeResultSchema = ResultSchema.extend({
  protocolVersion: z.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: z.string().optional(),
});

export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
export type InitializeRequestParams = z.infer<typeof InitializeRequestParamsSchema>;
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

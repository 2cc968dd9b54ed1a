import { z } from 'zod';
import { MetaSchema, ResultSchema, RoleSchema } from './base.js';
import { AudioContentSchema, ImageContentSchema, TextContentSchema } from './content.js';

// Sampling (server → client) ---------------------------------------------------

export const ToolUseContentSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  _meta: MetaSchema.optional(),
});

export const ToolResultContentSchema = z.looseObject({
  type: z.literal('tool_result'),
  toolUseId: z.string(),
  content: z.array(z.unknown()),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: MetaSchema.optional(),
});

export const SamplingContentSchema = z.discriminatedUnion('type', [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
]);

export const SamplingMessageSchema = z.looseObject({
  role: RoleSchema,
  content: z.union([SamplingContentSchema, z.array(SamplingContentSchema)]),
  _meta: MetaSchema.optional(),
});

export const ModelPreferencesSchema = z.looseObject({
  hints: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  costPriority: z.number().optional(),
  speedPriority: z.number().optional(),
  intelligencePriority: z.number().optional(),
});

export const CreateMessageRequestParamsSchema = z.looseObject({
  messages: z.array(SamplingMessageSchema),
  modelPreferences: ModelPreferencesSchema.optional(),
  systemPrompt: z.string().optional(),
  includeContext: z.enum(['none', 'thisServer', 'allServers']).optional(),
  temperature: z.number().optional(),
  maxTokens: z.number(),
  stopSequences: z.array(z.string()).optional(),
  metadata: z.looseObject({}).optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  toolChoice: z.looseObject({ mode: z.enum(['auto', 'required', 'none']).optional() }).optional(),
  _meta: MetaSchema.optional(),
});

export const CreateMessageResultSchema = ResultSchema.extend({
  role: RoleSchema,
  content: z.union([SamplingContentSchema, z.array(SamplingContentSchema)]),
  model: z.string(),
  stopReason: z.string().optional(),
});

// Elicitation (server → client, since 2025-06-18) -------------------------------

export const ElicitRequestParamsSchema = z.union([
  z.looseObject({
    mode: z.literal('form').optional(),
    message: z.string(),
    requestedSchema: z.looseObject({
      type: z.literal('object'),
      properties: z.record(z.string(), z.unknown()),
    }),
  }),
  z.looseObject({
    mode: z.literal('url'),
    message: z.string(),
    url: z.string(),
    elicitationId: z.string(),
  }),
]);

export const ElicitResultSchema = ResultSchema.extend({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
    .optional(),
});

export type SamplingMessage = z.infer<typeof SamplingMessageSchema>;
export type CreateMessageRequestParams = z.infer<typeof CreateMessageRequestParamsSchema>;
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;
export type ElicitRequestParams = z.infer<typeof ElicitRequestParamsSchema>;
export type ElicitResult = z.infer<typeof ElicitResultSchema>;

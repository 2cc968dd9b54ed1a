import { z } from 'zod';
import {
  CacheHintShape,
  CursorSchema,
  IconSchema,
  LoggingLevelSchema,
  MetaSchema,
  PaginatedResultSchema,
  ResultSchema,
  RoleSchema,
} from './base.js';
import { ContentBlockSchema, ResourceContentsSchema, resourceDescriptionShape } from './content.js';

// Tools ----------------------------------------------------------------------

/** Hints only: never trust them for security decisions. */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

const JsonObjectSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), z.unknown()).optional(),
});

export const ToolSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonObjectSchema,
  outputSchema: JsonObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  execution: z
    .looseObject({ taskSupport: z.enum(['forbidden', 'optional', 'required']).optional() })
    .optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaSchema.optional(),
});

export const ListToolsResultSchema = PaginatedResultSchema.extend({ tools: z.array(ToolSchema) });

export const CallToolResultSchema = ResultSchema.extend({
  content: z.array(ContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

/** 2024-11-05 servers may answer tools/call with the older `toolResult` shape. */
export const CompatibilityCallToolResultSchema = z.union([
  CallToolResultSchema,
  ResultSchema.extend({ toolResult: z.unknown() }),
]);

// Resources ------------------------------------------------------------------

export const ResourceSchema = z.looseObject({
  uri: z.string(),
  size: z.number().optional(),
  ...resourceDescriptionShape,
});

export const ResourceTemplateSchema = z.looseObject({
  uriTemplate: z.string(),
  ...resourceDescriptionShape,
});

export const ListResourcesResultSchema = PaginatedResultSchema.extend({
  resources: z.array(ResourceSchema),
});
export const ListResourceTemplatesResultSchema = PaginatedResultSchema.extend({
  resourceTemplates: z.array(ResourceTemplateSchema),
});
export const ReadResourceResultSchema = ResultSchema.extend({
  ...CacheHintShape,
  contents: z.array(ResourceContentsSchema),
});

// Prompts --------------------------------------------------------------------

export const PromptArgumentSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});

export const PromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(PromptArgumentSchema).optional(),
  icons: z.array(IconSchema).optional(),
  _meta: MetaSchema.optional(),
});

export const PromptMessageSchema = z.looseObject({ role: RoleSchema, content: ContentBlockSchema });

export const ListPromptsResultSchema = PaginatedResultSchema.extend({
  prompts: z.array(PromptSchema),
});
export const GetPromptResultSchema = ResultSchema.extend({
  description: z.string().optional(),
  messages: z.array(PromptMessageSchema),
});

// Completion, logging, roots ---------------------------------------------------

export const CompleteResultSchema = ResultSchema.extend({
  completion: z.looseObject({
    values: z.array(z.string()),
    total: z.number().optional(),
    hasMore: z.boolean().optional(),
  }),
});

export const LoggingMessageParamsSchema = z.looseObject({
  level: LoggingLevelSchema,
  logger: z.string().optional(),
  data: z.unknown(),
});

export const RootSchema = z.looseObject({
  uri: z.string(),
  name: z.string().optional(),
  _meta: MetaSchema.optional(),
});
export const ListRootsResultSchema = ResultSchema.extend({ roots: z.array(RootSchema) });

export const PaginatedParamsSchema = z.looseObject({ cursor: CursorSchema.optional() });

export type Tool = z.infer<typeof ToolSchema>;
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;
export type ListToolsResult = z.infer<typeof ListToolsResultSchema>;
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
export type Resource = z.infer<typeof ResourceSchema>;
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;
export type Prompt = z.infer<typeof PromptSchema>;
export type PromptArgument = z.infer<typeof PromptArgumentSchema>;
export type PromptMessage = z.infer<typeof PromptMessageSchema>;
export type ListPromptsResult = z.infer<typeof ListPromptsResultSchema>;
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
export type CompleteResult = z.infer<typeof CompleteResultSchema>;
export type LoggingMessageParams = z.infer<typeof LoggingMessageParamsSchema>;
export type Root = z.infer<typeof RootSchema>;
export type ListRootsResult = z.infer<typeof ListRootsResultSchema>;

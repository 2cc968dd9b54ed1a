/** The zod schemas of the MCP messages. Importing this loads zod. */
export {
  AnnotationsSchema,
  CursorSchema,
  EmptyResultSchema,
  IconSchema,
  ImplementationSchema,
  LoggingLevelSchema,
  MetaSchema,
  PaginatedResultSchema,
  ProgressTokenSchema,
  ResultSchema,
  RoleSchema,
} from './schemas/base.js';
export {
  ClientCapabilitiesSchema,
  InitializeRequestParamsSchema,
  InitializeResultSchema,
  ServerCapabilitiesSchema,
} from './schemas/capabilities.js';
export {
  CreateMessageRequestParamsSchema,
  CreateMessageResultSchema,
  ElicitRequestParamsSchema,
  ElicitResultSchema,
  ModelPreferencesSchema,
  SamplingContentSchema,
  SamplingMessageSchema,
  ToolResultContentSchema,
  ToolUseContentSchema,
} from './schemas/client-features.js';
export {
  AudioContentSchema,
  BlobResourceContentsSchema,
  ContentBlockSchema,
  EmbeddedResourceSchema,
  ImageContentSchema,
  ResourceContentsSchema,
  ResourceLinkSchema,
  TextContentSchema,
  TextResourceContentsSchema,
} from './schemas/content.js';
export {
  CallToolResultSchema,
  CompatibilityCallToolResultSchema,
  CompleteResultSchema,
  GetPromptResultSchema,
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListRootsResultSchema,
  ListToolsResultSchema,
  LoggingMessageParamsSchema,
  PaginatedParamsSchema,
  PromptArgumentSchema,
  PromptMessageSchema,
  PromptSchema,
  ReadResourceResultSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  RootSchema,
  ToolAnnotationsSchema,
  ToolSchema,
} from './schemas/features.js';
export {
  DiscoverResultSchema,
  InputRequestSchema,
  InputRequiredResultSchema,
  SubscriptionFilterSchema,
  SubscriptionsAcknowledgedParamsSchema,
} from './schemas/modern.js';
export {
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  TaskSchema,
  TaskStatusSchema,
} from './schemas/tasks.js';

/**
 * The MCP vocabulary without a runtime dependency: types, version rules, method and
 * header names, and allocation-free validators for hot results. The zod schemas live in
 * the `@mcpkit/protocol/schemas` subpath, so that importing this entry stays cheap.
 */

export { fastCallToolResult, fastInitializeResult, fastListToolsResult } from './fast-paths.js';
export { isBlobResourceContents, isTextResourceContents } from './guards.js';
export {
  decodeHeaderValue,
  encodeHeaderValue,
  invalidParamHeaders,
  standardRequestHeaders,
  toolParamHeaders,
} from './http-headers.js';
export type { McpTransport, McpTransportCapabilities } from './mcp-transport.js';
export {
  ClientMethod,
  Header,
  McpErrorCode,
  MetaKey,
  Notification,
  ServerMethod,
} from './methods.js';
export type {
  Annotations,
  Icon,
  Implementation,
  LoggingLevel,
  Role,
} from './schemas/base.js';
export type {
  ClientCapabilities,
  InitializeRequestParams,
  InitializeResult,
  ServerCapabilities,
} from './schemas/capabilities.js';
export type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  SamplingMessage,
} from './schemas/client-features.js';
export type {
  AudioContent,
  BlobResourceContents,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  TextContent,
  TextResourceContents,
} from './schemas/content.js';
export type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListRootsResult,
  ListToolsResult,
  LoggingMessageParams,
  Prompt,
  PromptArgument,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  Tool,
  ToolAnnotations,
} from './schemas/features.js';
export type {
  DiscoverResult,
  InputRequest,
  InputRequiredResult,
  SubscriptionFilter,
} from './schemas/modern.js';
export type {
  Task,
  TaskStatus,
} from './schemas/tasks.js';
export {
  compareVersions,
  type Era,
  eraOf,
  FEATURE_SINCE,
  isLegacyVersion,
  isProtocolVersion,
  LATEST_LEGACY_VERSION,
  LATEST_PROTOCOL_VERSION,
  LEGACY_VERSIONS,
  type LegacyVersion,
  MODERN_VERSIONS,
  type ModernVersion,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
  supports,
} from './versions.js';

export {
  headerMismatch,
  invalidParams,
  McpServerError,
  methodNotFound,
  missingCapability,
  ServerErrorCode,
  unsupportedVersion,
} from './errors.js';
export {
  type ListenOptions,
  listenDefaults,
  listenStreamableHttp,
  type StreamableHttpListener,
} from './http/listen.js';
export {
  createMemorySessionStore,
  type MemorySessionStore,
  type SessionBusMessage,
  type SessionRecord,
  type SessionStore,
  type StoredEvent,
  type StreamOwner,
} from './http/session-store.js';
export {
  createStreamableHttpHandler,
  type ErrorStatus,
  type StreamableHttpHandler,
  type StreamableHttpLimits,
  type StreamableHttpOptions,
  type StreamableHttpStats,
  streamableHttpDefaults,
} from './http/streamable-http-handler.js';
export {
  McpServer,
  type McpServerOptions,
  type ResolvedTool,
  serverDefaults,
  type VisibleKind,
} from './mcp-server.js';
export { DEFAULT_PAGE_SIZE } from './pagination.js';
export {
  RequestStateSeal,
  type RequestStateSealOptions,
  requestStateDefaults,
} from './request-state.js';
export { inputRequired } from './run-with-input.js';
export { serveStdio } from './serve-stdio.js';
export { ServerSession, type ServerSessionOptions, type SessionClient } from './server-session.js';
export {
  StdioServerTransport,
  type StdioServerTransportOptions,
} from './stdio-server-transport.js';
export {
  TASKS_EXTENSION,
  type TaskControl,
  type TaskStatus,
  type TaskStoreOptions,
  type TaskWork,
  type ToolTaskOptions,
  type ToolTaskReturn,
  taskStoreDefaults,
  toolTask,
} from './tasks-ext.js';
export type {
  CacheHints,
  Completer,
  HandlerContext,
  InputRequest,
  InputRequiredReturn,
  PromptDefinition,
  PromptHandler,
  Registration,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  SubscriptionContext,
  SubscriptionHook,
  TemplateReader,
  ToolDefinition,
  ToolHandler,
} from './types.js';
export { UriTemplate } from './uri-template.js';

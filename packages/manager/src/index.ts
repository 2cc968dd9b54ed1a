export {
  appVisible,
  type HostToolUi,
  MCP_APP_MIME_TYPE,
  modelVisible,
  parseToolUi,
  UI_EXTENSION_ID,
  type UiCsp,
  type UiPermissions,
  type UiResource,
  type UiVisibility,
  uiAllowAttribute,
  uiContentSecurityPolicy,
} from './apps.js';
export { type ManagerAuthOptions, oauthProviderFor } from './auth-wiring.js';
export {
  type CrashLoopPolicy,
  crashLoopDefaults,
  type ReconnectPolicy,
  reconnectDefaults,
  reconnectDelay,
} from './backoff.js';
export type { ListKind, ServerListing } from './catalog.js';
export { diagnose } from './classify.js';
export { type Clock, systemClock } from './clock.js';
export type { HostCommand } from './commands.js';
export {
  type AppToolRefusal,
  AppToolRefusedError,
  ConnectTimeoutError,
  CrashLoopError,
  type FailureFacts,
  ManagerClosedError,
  ManagerError,
  ManagerErrorCode,
  ServerConnectError,
  ServerNotEnabledError,
  ServerUnavailableError,
  UiResourceError,
  type UiResourceProblem,
  UnknownServerError,
  UnknownToolError,
  UnsupportedServerTypeError,
} from './errors.js';
export type {
  Diagnosis,
  FailureCause,
  FailureKind,
  NextStep,
  NextStepKind,
} from './failure.js';
export type { ManagerHint, ManagerHints, ResolvedHints } from './hints.js';
export {
  authenticateToolDefinition,
  type HostTool,
  type HostToolCallOptions,
} from './host-tool.js';
export { type ManagerLimits, managerDefaults } from './limits.js';
export { McpManager } from './mcp-manager.js';
export { HOST_NAME_PATTERN, hostName, NameRegistry, type NamingOptions } from './names.js';
export type { HostContent, HostToolResult } from './normalize-result.js';
export type { ManagerHandlers, ManagerView, McpManagerOptions } from './options.js';
export type { ReloadResult } from './reload.js';
export type { HostResource, HostResourceTemplate } from './resources.js';
export { ManagerScope } from './scope.js';
export type {
  ConnectedState,
  DisabledState,
  FailedState,
  ListDiff,
  ListFailure,
  ListNextStep,
  ManagerEvents,
  ManagerSnapshot,
  NeedsAuthState,
  PendingState,
  ServerState,
  ToolListIssue,
} from './state.js';
export {
  createTransport,
  type TransportContext,
  type TransportFactory,
} from './transport-factory.js';

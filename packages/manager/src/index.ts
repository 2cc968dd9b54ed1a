export {
  httpAuthFor,
  type ManagerAuthOptions,
  oauthProviderFor,
  workingDirectoryOf,
} from './auth-wiring.js';
export {
  CrashLoopBreaker,
  type CrashLoopPolicy,
  crashLoopDefaults,
  type ReconnectPolicy,
  reconnectDefaults,
  reconnectDelay,
} from './backoff.js';
export type { ListKind } from './catalog.js';
export { type Diagnosis, diagnose } from './classify.js';
export { type Clock, systemClock } from './clock.js';
export { type HostCommand, parseCommandArguments } from './commands.js';
export {
  ConnectTimeoutError,
  CrashLoopError,
  type FailureFacts,
  ManagerClosedError,
  ManagerError,
  ManagerErrorCode,
  ServerConnectError,
  ServerNotEnabledError,
  ServerUnavailableError,
  UnknownServerError,
  UnknownToolError,
  UnsupportedServerTypeError,
} from './errors.js';
export type { FailureCause, FailureKind, NextStep, NextStepKind } from './failure.js';
export {
  defaultHints,
  type ManagerHint,
  type ManagerHints,
  type ResolvedHints,
  resolveHints,
} from './hints.js';
export type { HostTool, HostToolCallOptions } from './host-tool.js';
export { type ManagerLimits, managerDefaults, resolveLimits } from './limits.js';
export { McpManager } from './mcp-manager.js';
export {
  HOST_NAME_MAX,
  HOST_NAME_PATTERN,
  hostName,
  NameRegistry,
  type NamingOptions,
} from './names.js';
export { extensionFor, type HostContent, type HostToolResult } from './normalize-result.js';
export type { ManagerHandlers, ManagerView, McpManagerOptions } from './options.js';
export { diffServers, type ReloadResult, serverFingerprint } from './reload.js';
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
  assertEnabled,
  createTransport,
  isLocal,
  type TransportContext,
  type TransportFactory,
} from './transport-factory.js';

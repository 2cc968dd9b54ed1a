export type { ApprovalNeeded, ProjectApprovals } from './approvals.js';
export {
  type Diagnostic,
  formatDiagnostic,
} from './diagnostics.js';
export { ConfigErrorCode } from './errors.js';
export {
  CONFIG_READ_ERROR_CODES,
  type ConfigFs,
  ConfigReadError,
  type ConfigReadErrorCode,
  nodeFs,
  readConfigFile,
} from './fs.js';
export { assertMayContact, mayContact, ServerNotEnabledError } from './gate.js';
export {
  IMPORT_LOCATIONS,
  IMPORT_SOURCES,
  type ImportOptions,
  type ImportResult,
  type ImportSource,
  importServers,
} from './importers/index.js';
export { mcpJsonSchema } from './json-schema.js';
export { parseJsoncText } from './jsonc.js';
export {
  type DynamicConfig,
  type LoadedFile,
  type LoadOptions,
  type LoadResult,
  loadConfig,
} from './load.js';
export {
  approve,
  approveAll,
  reject,
  resetApprovals,
  updateApprovals,
} from './local-state.js';
export {
  evaluatePolicy,
  type Policy,
  type PolicyDecision,
} from './policy.js';
export {
  isCredentialName,
  redactServerConfig,
  redactUrl,
  scrubSecrets,
  secretValues,
} from './redact.js';
export {
  type ConfigSource,
  type DroppedServer,
  type ResolvedServer,
  type ResolveInput,
  type ResolveResult,
  resolveConfig,
  SCOPES,
  type Scope,
  type ServerOrigin,
  type ServerStatus,
} from './resolve.js';
export type {
  HttpServerConfig,
  OAuthConfig,
  PolicyEntry,
  ProxyServerConfig,
  SdkServerConfig,
  ServerConfig,
  SseIdeServerConfig,
  SseServerConfig,
  StdioServerConfig,
  WsIdeServerConfig,
  WsServerConfig,
} from './schemas.js';
export type { ServerType } from './server-types.js';
export type { ApprovalRecord } from './signature.js';
export {
  addServer,
  type ConfigWriteConflict,
  ConfigWriteError,
  removeServer,
  scopeTarget,
  updateServer,
  type WritableScope,
  type WriteOptions,
} from './writers.js';

export {
  approvalStatus,
  legacyApprovals,
  type ProjectApprovals,
} from './approvals.js';
export { type Diagnostic, formatDiagnostic, jsonPath } from './diagnostics.js';
export {
  EXPANDED_FIELDS,
  type Expansion,
  expandServer,
  expandString,
  referencedVariables,
} from './expand.js';
export {
  CONFIG_READ_ERROR_CODES,
  type ConfigFs,
  ConfigReadError,
  type ConfigReadErrorCode,
  MAX_CONFIG_FILE_BYTES,
  nodeFs,
  readConfigFile,
} from './fs.js';
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
  withConnectors,
} from './load.js';
export {
  type ApprovalTarget,
  approve,
  approveAll,
  loadProjectState,
  type ProjectState,
  readProjectState,
  reject,
  resetApprovals,
  updateApprovals,
} from './local-state.js';
export {
  configPaths,
  managedConfigDir,
  type PathContext,
  projectFileCandidates,
  userConfigDir,
} from './paths.js';
export { evaluatePolicy, type Policy, type PolicyDecision } from './policy.js';
export { failClosedReason, type PolicyFileResult, parsePolicyFile } from './policy-file.js';
export {
  MIN_SECRET_LENGTH,
  REDACTED,
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
export {
  type HttpServerConfig,
  HttpServerSchema,
  McpJsonFileSchema,
  type OAuthConfig,
  OAuthConfigSchema,
  type PolicyEntry,
  PolicyEntrySchema,
  type ProxyServerConfig,
  ProxyServerSchema,
  type SdkServerConfig,
  SdkServerSchema,
  SERVER_NAME_PATTERN,
  SERVER_TYPES,
  type ServerConfig,
  ServerConfigSchema,
  type ServerType,
  type SseIdeServerConfig,
  SseIdeServerSchema,
  type SseServerConfig,
  SseServerSchema,
  type StdioServerConfig,
  StdioServerSchema,
  type WsIdeServerConfig,
  WsIdeServerSchema,
  type WsServerConfig,
  WsServerSchema,
} from './schemas.js';
export {
  type ApprovalRecord,
  approvalChanges,
  approvalRecord,
  commandOf,
  serverSignature,
  unwrapProxyUrl,
  urlOf,
} from './signature.js';
export {
  parseUrlRule,
  ruleMatches,
  type UrlParts,
  type UrlRule,
  urlMatches,
  urlParts,
} from './url-rules.js';
export { validateServerEntry } from './validate-entry.js';
export {
  addServer,
  ConfigWriteError,
  removeServer,
  scopeTarget,
  updateServer,
  type WritableScope,
  type WriteOptions,
} from './writers.js';

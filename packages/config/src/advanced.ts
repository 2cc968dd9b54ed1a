/**
 * @mcpkit/config/advanced: the building blocks under the resolver (path rules, variable
 * expansion, per-kind schemas, URL rules, project state, policy-file parsing). Not for most
 * users: `loadConfig`/`resolveConfig` and the names at the package root are the supported
 * surface; these may change between minor versions.
 */
export {
  approvalStatus,
  legacyApprovals,
} from './approvals.js';
export { jsonPath } from './diagnostics.js';
export {
  EXPANDED_FIELDS,
  type Expansion,
  expandServer,
  expandString,
  referencedVariables,
} from './expand.js';
export { MAX_CONFIG_FILE_BYTES } from './fs.js';
export { withConnectors } from './load.js';
export {
  type ApprovalTarget,
  loadProjectState,
  type ProjectState,
  readProjectState,
} from './local-state.js';
export {
  configPaths,
  managedConfigDir,
  type PathContext,
  projectFileCandidates,
  userConfigDir,
} from './paths.js';
export {
  failClosedReason,
  type PolicyFileResult,
  parsePolicyFile,
} from './policy-file.js';
export {
  MIN_SECRET_LENGTH,
  REDACTED,
} from './redact.js';
export { SERVER_NAME_PATTERN, SERVER_TYPES } from './server-types.js';
export {
  approvalChanges,
  approvalRecord,
  commandOf,
  unwrapProxyUrl,
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

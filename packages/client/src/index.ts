export {
  type ClientHandlers,
  capabilitiesFor,
  type ServerRequestContext,
} from './client-handlers.js';
export {
  ClientErrorCode,
  InvalidResultError,
  InvalidToolError,
  LimitExceededError,
  MissingHandlerError,
  RepeatedCursorError,
  UnsupportedByServerError,
  UnsupportedProtocolVersionError,
  type UrlElicitation,
  UrlElicitationRequiredError,
} from './errors.js';
export { McpClient } from './mcp-client.js';
export { type EraRecord, sharedEraCache } from './modern.js';
export {
  type CallOptions,
  type CallToolParams,
  checkClientOptions,
  clientDefaults,
  type InputRoundOptions,
  type McpClientOptions,
  type SkillOptions,
  type Subscription,
} from './options.js';
export { OutputSchemaError } from './output-schema.js';
export {
  type SkillEntry,
  type SkillFrontmatter,
  type SkillResource,
  skillsExtensionId,
} from './skills/entry.js';
export { SkillError, SkillErrorCode, SkillVerificationError } from './skills/errors.js';
export { type Skill, type SkillFile, skillDefaults } from './skills/skills.js';
export {
  type ExtensionTask,
  isTaskHandle,
  TASKS_EXTENSION,
  TaskEndedError,
  type TaskFollowOptions,
  type TaskHandle,
  withTasksExtension,
} from './tasks-ext.js';

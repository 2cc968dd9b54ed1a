export { AiSdkErrorCode, ToolResultError } from './errors.js';
export type { InlineFilesOptions, ModelOutput } from './model-output.js';
export {
  createToolSet,
  type McpTool,
  type McpToolOutput,
  type ToolProgressEvent,
  type ToolSetOptions,
  type ToolSource,
  toolSetDefaults,
} from './tool-set.js';

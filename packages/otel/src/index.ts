export { McpAttr, McpMetric } from './attributes.js';
export {
  instrumentManager,
  type ManagerOtelOptions,
  type ObservedManager,
  type ObservedState,
} from './manager-instrumentation.js';
export {
  createMcpInstrumentation,
  errorTypeOf,
  type McpOtelOptions,
} from './mcp-instrumentation.js';
export { registerMcpInstrumentation } from './register.js';

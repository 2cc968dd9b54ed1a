export type { ObservedManager, ObservedState } from '@mcpkit/jsonrpc';
export { McpAttr, McpMetric } from './attributes.js';
export { errorTypeOf } from './error-type.js';
export { instrumentManager, type ManagerOtelOptions } from './manager-instrumentation.js';
export { createMcpInstrumentation, type McpOtelOptions } from './mcp-instrumentation.js';
export { registerMcpInstrumentation } from './register.js';

import { type McpInstrumentation, setGlobalInstrumentation } from '@mcpkit/jsonrpc';
import { createMcpInstrumentation, type McpOtelOptions } from './mcp-instrumentation.js';

/**
 * Makes these hooks the process-wide default: every `McpClient` and `McpServer` created
 * afterwards without an `instrumentation` option of its own (so a manager's clients and a
 * gateway's face too) is traced. Returns the hooks; `setGlobalInstrumentation(undefined)`
 * from `@mcpkit/jsonrpc` turns them off for what is created later.
 */
export function registerMcpInstrumentation(options: McpOtelOptions = {}): McpInstrumentation {
  const hooks = createMcpInstrumentation(options);
  setGlobalInstrumentation(hooks);
  return hooks;
}

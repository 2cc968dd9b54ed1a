import type { McpServer } from './mcp-server.js';
import type { ServerSession } from './server-session.js';
import {
  StdioServerTransport,
  type StdioServerTransportOptions,
} from './stdio-server-transport.js';

/**
 * Serves `server` on this process's stdin/stdout. Resolves with the session once it
 * listens; the session closes when stdin ends.
 */
export function serveStdio(
  server: McpServer,
  options: StdioServerTransportOptions = {},
): Promise<ServerSession> {
  return server.connect(new StdioServerTransport(options), { label: 'stdio client' });
}

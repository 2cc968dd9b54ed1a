// The kind of proxy people write today: the official SDK v1 Client (stdio, to the backend)
// wired to an SDK v1 Server (stdio, to the caller) in one process. Tools only.
// Usage: node sdk-v1-proxy.mjs <command> [args...]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const backend = new Client({ name: 'sdk-proxy', version: '1.0.0' });
await backend.connect(new StdioClientTransport({ command, args }));
const server = new Server({ name: 'sdk-proxy', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request) => backend.listTools(request.params));
server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
  backend.callTool(request.params, undefined, { signal: extra.signal }),
);
await server.connect(new StdioServerTransport());
// The caller went away or asked it to stop: close the backend and exit (cleanly, so that a
// --cpu-prof profile gets written).
const stop = async () => {
  await backend.close().catch(() => {});
  process.exit(0);
};
process.stdin.on('end', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// A stdio MCP server (official SDK v1, low-level Server) that tells which process answered:
// each gateway replica runs its own copy, so `whoami` names the replica a call reached.
// `wait_for_file` answers once the file it names exists (a call that runs as long as a
// test wants, ended by an event the test makes, not a clock).
import { existsSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const tools = [
  { name: 'whoami', description: 'The pid of this backend', inputSchema: { type: 'object' } },
  {
    name: 'wait_for_file',
    description: 'Answers once the file exists',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];
const server = new Server(
  { name: 'replica-probe', version: '1.0.0' },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === 'whoami')
    return { content: [{ type: 'text', text: String(process.pid) }] };
  const file = String(request.params.arguments?.path ?? '');
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 20));
  return { content: [{ type: 'text', text: `released by ${file}` }] };
});
await server.connect(new StdioServerTransport());

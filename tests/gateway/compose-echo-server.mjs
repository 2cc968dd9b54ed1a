// A stdio MCP server (official SDK v1, low-level Server) whose tools answer with exactly
// the arguments they received: `node compose-echo-server.mjs <label>`. The answer's text
// is `<label> <tool> <JSON of the arguments>`, so a test sees what reached the backend.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const label = process.argv[2] ?? 'echo';
const string = { type: 'string' };
const tools = [
  {
    name: 'write',
    description: 'Writes a file',
    inputSchema: {
      type: 'object',
      properties: { path: string, text: string, root: string, mode: string },
      required: ['path', 'text', 'root'],
    },
  },
  {
    name: 'read_note',
    description: 'Reads a note',
    inputSchema: { type: 'object', properties: { id: string }, required: ['id'] },
  },
  {
    name: 'delete_note',
    description: 'Deletes a note',
    inputSchema: { type: 'object', properties: { id: string }, required: ['id'] },
  },
];

const server = new Server(
  { name: `compose-${label}`, version: '1.0.0' },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [
    {
      type: 'text',
      text: `${label} ${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}`,
    },
  ],
}));
await server.connect(new StdioServerTransport());

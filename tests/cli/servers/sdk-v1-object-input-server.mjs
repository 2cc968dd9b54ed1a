// A stdio server on the official SDK v1's low-level `Server` (1.32.2) that validates a
// call's `arguments` with zod itself, as many published servers do (the reference servers'
// "No arguments provided" checks; SDK versions before the McpServer default of `{}`).
// Its tool's input schema is an object whose properties are all optional, so `{}` is valid
// and a call without `arguments` is refused with -32602 (zod: expected object, received
// undefined).
//   greet {name?}  "hello, <name or world>"
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const GreetInput = z.object({ name: z.string().optional() });
const server = new Server(
  { name: 'sdk-v1-object-input', version: '1.0.0' },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'greet',
      description: 'Greets someone (or the world).',
      inputSchema: z.toJSONSchema(GreetInput),
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name !== 'greet')
    throw new McpError(ErrorCode.InvalidParams, `unknown tool ${request.params.name}`);
  const parsed = GreetInput.safeParse(request.params.arguments);
  if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, parsed.error.message);
  return { content: [{ type: 'text', text: `hello, ${parsed.data.name ?? 'world'}` }] };
});
await server.connect(new StdioServerTransport());

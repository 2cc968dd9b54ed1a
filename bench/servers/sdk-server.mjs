// The same echo tool, built with the official SDK v1 (McpServer over stdio).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
server.registerTool(
  'echo',
  { inputSchema: { text: z.string().optional(), bytes: z.number().optional() } },
  async ({ text, bytes }) => ({
    content: [{ type: 'text', text: bytes !== undefined ? 'x'.repeat(bytes) : (text ?? '') }],
  }),
);
await server.connect(new StdioServerTransport());

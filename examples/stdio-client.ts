// @mcpkit/client + @mcpkit/transport-stdio: start a server, list its tools, call one.
import { createRequire } from 'node:module';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';

const require = createRequire(import.meta.url);
const everything = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

export async function main(): Promise<string> {
  const client = new McpClient({ name: 'everything' });
  await client.connect(
    new StdioTransport({
      command: process.execPath,
      args: [everything, 'stdio'],
      name: 'everything',
    }),
  );
  try {
    const tools = await client.listTools();
    const result = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    const text = result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ');
    return `${tools.length} tools; get-sum(2, 3) → ${text}`;
  } finally {
    await client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main());

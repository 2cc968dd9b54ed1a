// @mcpkit/gateway: two-server manager served as one MCP server over HTTP, in-process.
import { createRequire } from 'node:module';
import path from 'node:path';
import { McpClient } from '@mcpkit/client';
import type { ResolvedServer } from '@mcpkit/config';
import { createGateway, type Gateway, gatewayHandlers } from '@mcpkit/gateway';
import { generateToken, listenHttp } from '@mcpkit/gateway/node';
import { McpManager } from '@mcpkit/manager';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';

const require = createRequire(import.meta.url);
const everything = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
// Two entries as `@mcpkit/config` resolves them (a host usually loads them from files).
const entry = (name: string) =>
  ({
    name,
    scope: 'user',
    source: 'example',
    config: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
    status: 'enabled',
    reason: 'example',
    policy: { allowed: true },
  }) as ResolvedServer;

export async function main(): Promise<string> {
  // The embedding itself (the README's ten lines):
  let gateway: Gateway | undefined;
  const manager = new McpManager({
    servers: [entry('a'), entry('b')],
    handlers: gatewayHandlers(() => gateway),
  });
  gateway = createGateway({
    manager,
    servers: ['a', 'b'],
    info: { name: 'hub', version: '1' },
    callTimeoutMs: 30_000,
  });
  await manager.connectAll();
  await gateway.start();
  const token = generateToken(); // every request must carry it
  const listener = await listenHttp(gateway, { port: 0, token });

  // A client of the gateway sees both servers' tools under prefixed names.
  const client = new McpClient({ name: 'gateway' });
  try {
    await client.connect(
      new StreamableHttpTransport({
        url: listener.url,
        headers: { Authorization: `Bearer ${token}` },
      }),
    );
    const names = (await client.listTools()).map((t) => t.name);
    const sum = await client.callTool({ name: 'b__get-sum', arguments: { a: 2, b: 3 } });
    const text = sum.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    return `${names.filter((n) => n.startsWith('a__')).length} + ${names.filter((n) => n.startsWith('b__')).length} tools; b__get-sum → ${text}`;
  } finally {
    await client.close();
    await listener.close();
    await gateway.close();
    await manager.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main());

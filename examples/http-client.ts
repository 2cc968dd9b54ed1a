// @mcpkit/transport-streamable-http, with the HTTP-first fallback to legacy HTTP+SSE for old
// servers (@mcpkit/manager/http-fallback, which composes both transports):
// connect to an MCP server by URL and list its tools.
import { McpClient } from '@mcpkit/client';
import { HttpFallbackTransport } from '@mcpkit/manager/http-fallback';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';

export async function main(url: string, options: { fallback?: boolean } = {}): Promise<string> {
  const transport = options.fallback
    ? new HttpFallbackTransport({ url, name: 'remote' })
    : new StreamableHttpTransport({
        url,
        name: 'remote',
        onreconnect: (e) => console.error(`reconnecting ${e.stream} stream, attempt ${e.attempt}`),
      });
  const client = new McpClient({ name: 'remote' });
  await client.connect(transport);
  try {
    const tools = await client.listTools();
    const via = transport instanceof HttpFallbackTransport ? transport.chosen : 'streamable-http';
    return `${tools.length} tools over ${via}`;
  } finally {
    await client.close();
  }
}

const [, script, url] = process.argv;
if (url && import.meta.url === `file://${script}`) console.log(await main(url, { fallback: true }));

import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';

export async function open(url) {
  const client = new McpClient({ name: 'bench' });
  await client.connect(new StreamableHttpTransport({ url, name: 'bench' }));
  return {
    call: (args) => client.callTool({ name: 'echo', arguments: args }),
    close: () => client.close(),
  };
}

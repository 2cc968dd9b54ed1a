import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';

export async function open(command, args) {
  const client = new McpClient({ name: 'bench' });
  await client.connect(new StdioTransport({ command, args, name: 'bench' }));
  return {
    call: (args) => client.callTool({ name: 'echo', arguments: args }),
    close: () => client.close(),
  };
}

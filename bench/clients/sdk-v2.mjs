import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

export async function open(command, args) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args }));
  return {
    call: (a) => client.callTool({ name: 'echo', arguments: a }),
    close: () => client.close(),
  };
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export async function open(command, args, options = {}) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const params = { command, args };
  // "liftCap": raise the 10 MiB default read-buffer limit so large results can arrive.
  if (options.liftCap) params.maxBufferSize = 1024 * 1024 * 1024;
  await client.connect(new StdioClientTransport(params));
  return {
    call: (a) => client.callTool({ name: 'echo', arguments: a }),
    close: () => client.close(),
  };
}

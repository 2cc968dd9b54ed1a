// Connect-all with the official SDK v1: one `Client` + `StdioClientTransport` per server,
// under p-map at the given concurrency.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pMap from 'p-map';
import { serverEnvironment } from './server-env.mjs';

export async function connectAll({ command, args, count, concurrency }) {
  const clients = await pMap(
    Array.from({ length: count }, (_, i) => i),
    async () => {
      const client = new Client({ name: 'bench-sdk-v1', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command,
          args,
          stderr: 'inherit',
          // SDK v1's own default leaves out the CA variables; the same start as the others.
          env: serverEnvironment(),
        }),
      );
      return client;
    },
    { concurrency },
  );
  return {
    connected: clients.length,
    close: () => Promise.all(clients.map((c) => c.close())),
  };
}

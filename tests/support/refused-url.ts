import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An MCP URL on a 127.0.0.1 port nothing listens on: bound, then closed. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

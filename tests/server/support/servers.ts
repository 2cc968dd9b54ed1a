import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ListenOptions, listenStreamableHttp, type McpServer } from '@mcpkit/server';
import { createConformanceServer } from '../../fixtures/conformance-server.mjs';

/** The fixture server file: `node <fixture> stdio` serves it on stdin/stdout (built dist). */
export const fixture = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/conformance-server.mjs',
);

export interface HttpFixture {
  server: McpServer;
  url: URL;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The fixture server on a real node:http server on 127.0.0.1 (from sources, in this process). */
export async function startHttpFixture(options: ListenOptions = {}): Promise<HttpFixture> {
  const server = createConformanceServer() as McpServer;
  const listener = await listenStreamableHttp(server, options);
  const close = async () => {
    await server.close();
    await listener.close();
  };
  return { server, url: listener.url, close, [Symbol.asyncDispose]: close };
}

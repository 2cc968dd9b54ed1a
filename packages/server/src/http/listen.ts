import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '../mcp-server.js';
import { sendJsonError } from './sse.js';
import {
  createStreamableHttpHandler,
  type StreamableHttpHandler,
  type StreamableHttpOptions,
} from './streamable-http-handler.js';

export interface ListenOptions extends StreamableHttpOptions {
  /** Interface to bind; loopback by default. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The MCP endpoint; other paths get 404. */
  path?: string;
  /**
   * Sees every request first (any path): answers it and returns true (a health route, an
   * authorization check), or returns false to let the listener route it.
   */
  intercept?: (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;
}

export interface StreamableHttpListener {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  readonly url: URL;
  readonly httpServer: Server;
  readonly handler: StreamableHttpHandler;
  /** Ends sessions and streams, then stops listening. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves `server` on a new `node:http` server: 127.0.0.1, a free port and `/mcp` by default. */
export async function listenStreamableHttp(
  server: McpServer,
  options: ListenOptions = {},
): Promise<StreamableHttpListener> {
  const host = (options.host ?? '127.0.0.1').replace(/^\[|\]$/g, '');
  const path = options.path ?? '/mcp';
  const handler = createStreamableHttpHandler(server, options);
  const httpServer = createServer((req, res) => {
    const url = req.url ?? '/';
    const pathname = url.split('?', 1)[0] ?? '/';
    if (options.intercept?.(req, res, pathname)) return;
    if (pathname !== path) {
      sendJsonError(res, 404, -32000, `Not Found: the MCP endpoint is ${path}`);
      return;
    }
    void handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  const close = async () => {
    await handler.close();
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  };
  return {
    url: new URL(`http://${shown}:${port}${path}`),
    httpServer,
    handler,
    close,
    [Symbol.asyncDispose]: close,
  };
}

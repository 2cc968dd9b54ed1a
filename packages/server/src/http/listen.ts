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
   * authorization check), or returns false to let the listener route it. It may answer
   * later (a token verified against an authorization server): the request is routed once
   * the promise settles to false; a rejected promise is a 500.
   */
  intercept?: (
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
  ) => boolean | Promise<boolean>;
  /** Time a client has to send a request's headers, in ms (Node's own default is 60 s). */
  headersTimeoutMs?: number;
  /**
   * Time a client has to send a whole request, headers and body, in ms; a slower one gets
   * 408 and its connection is closed (Node's own default is 300 s). Responses (an SSE
   * stream) are not bounded by it.
   */
  requestTimeoutMs?: number;
  /** Connections open at once; one more is closed as soon as it is accepted. */
  maxConnections?: number;
  /** Connections open at once from one remote address; one more is closed at once. */
  maxConnectionsPerAddress?: number;
}

export const listenDefaults = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 512,
  maxConnectionsPerAddress: 256,
} as const;

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
  const requestTimeout = options.requestTimeoutMs ?? listenDefaults.requestTimeoutMs;
  // Node wants headersTimeout <= requestTimeout.
  const headersTimeout = Math.min(
    options.headersTimeoutMs ?? listenDefaults.headersTimeoutMs,
    requestTimeout,
  );
  const route = (req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    if (pathname !== path) {
      sendJsonError(res, 404, -32000, `Not Found: the MCP endpoint is ${path}`);
      return;
    }
    void handler(req, res);
  };
  const httpServer = createServer(
    {
      headersTimeout,
      requestTimeout,
      // How often Node looks for connections over those timeouts (30 s by default, which
      // would let a shorter timeout run on for up to 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(1000, headersTimeout)),
    },
    (req, res) => {
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      const pathname = query === -1 ? url : url.slice(0, query);
      const answered = options.intercept?.(req, res, pathname) ?? false;
      if (answered === true) return;
      if (answered === false) {
        route(req, res, pathname);
        return;
      }
      answered.then(
        (done) => {
          if (!done) route(req, res, pathname);
        },
        () => {
          if (!res.headersSent) sendJsonError(res, 500, -32603, 'Internal error');
          else res.destroy();
        },
      );
    },
  );
  httpServer.maxConnections = options.maxConnections ?? listenDefaults.maxConnections;
  const perAddressCap = options.maxConnectionsPerAddress ?? listenDefaults.maxConnectionsPerAddress;
  const perAddress = new Map<string, number>();
  httpServer.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (perAddress.get(address) ?? 0) + 1;
    if (count > perAddressCap) {
      socket.destroy();
      return;
    }
    perAddress.set(address, count);
    socket.once('close', () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
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

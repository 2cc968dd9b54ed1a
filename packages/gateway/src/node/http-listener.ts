import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createStreamableHttpHandler,
  LOOPBACK_HOSTS,
  refuseHostOrOrigin,
  streamableHttpDefaults,
} from '@mcpkit/server';
import type { Gateway } from '../gateway.js';

export const LOOPBACK_BIND = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface HttpFaceOptions {
  host: string;
  port: number;
  /** Required for a non-loopback bind (the caller generates one when absent). */
  token: string | undefined;
  /** The largest request body (`--max-message-bytes`); bigger ones get 413. */
  maxBodyBytes?: number;
}

export interface HttpFace {
  readonly url: URL;
  close(): Promise<void>;
}

/** A new random bearer token (printed once by `mcpkit serve` when it made one). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison: digests first, so the lengths never differ. */
function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message } }));
}

/**
 * The gateway's HTTP face: `/mcp` (Streamable HTTP, both eras) and `GET /healthz`, with the
 * Host/Origin checks against DNS rebinding and, when a token is set, a bearer token on every
 * request (health included).
 */
export async function listenHttpFace(
  gateway: Gateway,
  options: HttpFaceOptions,
): Promise<HttpFace> {
  const bindHost = options.host.replace(/^\[|\]$/g, '');
  const loopback = LOOPBACK_BIND.has(bindHost);
  if (!loopback && !options.token)
    throw new Error(`binding ${options.host} needs a bearer token (--token or MCPKIT_SERVE_TOKEN)`);
  const shown = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  const allowedHosts = loopback ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, shown];
  const maxBodyBytes = options.maxBodyBytes ?? streamableHttpDefaults.maxBodyBytes;
  const handler = createStreamableHttpHandler(gateway.server, { allowedHosts, maxBodyBytes });
  const token = options.token;
  const httpServer: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = (req.url ?? '/').split('?', 1)[0];
    // The same DNS-rebinding checks for /healthz as for /mcp.
    const refused = refuseHostOrOrigin(req, allowedHosts, undefined);
    if (refused) return refuse(res, 403, `Forbidden: ${refused}`);
    if (token !== undefined) {
      const header = req.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!sameToken(given, token)) {
        refuse(
          res,
          401,
          'mcpkit serve: a valid bearer token is required (Authorization: Bearer <token>)',
          {
            'www-authenticate': 'Bearer',
          },
        );
        return;
      }
    }
    if (pathname === '/healthz') {
      if (req.method !== 'GET') return refuse(res, 405, 'GET only');
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      // 200 whatever the backends' states: the gateway itself answers (a probe that restarts
      // it would not bring a backend back); the body says which backends are down or degraded.
      res.end(JSON.stringify(gateway.health()));
      return;
    }
    if (pathname !== '/mcp') return refuse(res, 404, 'Not Found: the MCP endpoint is /mcp');
    // A body announced over the limit is refused before any of it is read, naming the flag;
    // one without a length is cut off by the handler as it arrives (413 as well).
    const announced = Number(req.headers['content-length']);
    if (announced > maxBodyBytes) {
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: `Payload Too Large: the body is ${announced} bytes, over the gateway's ${maxBodyBytes}-byte limit (mcpkit serve --max-message-bytes <n> raises it)`,
          },
        }),
      );
      return;
    }
    void handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port, bindHost, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: new URL(`http://${shown}:${port}/mcp`),
    close: async () => {
      await handler.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

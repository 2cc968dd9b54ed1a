import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { McpkitError } from '@mcpkit/jsonrpc';
import {
  LOOPBACK_HOSTS,
  listenStreamableHttp,
  refuseHostOrOrigin,
  type StreamableHttpLimits,
  type StreamableHttpStats,
  streamableHttpDefaults,
} from '@mcpkit/server';
import { EndpointRouter, type EndpointSource } from '../compose/endpoint-router.js';
import type { Gateway } from '../gateway.js';

export interface HttpListenerOptions {
  /** Interface to bind (`127.0.0.1`, `::1`, `[::1]`, `0.0.0.0` …). Default `127.0.0.1`. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required for a non-loopback bind (`generateToken` makes one). */
  token?: string | undefined;
  /** The largest request body; bigger ones get 413. The server's default when absent. */
  maxBodyBytes?: number;
  /**
   * Words appended to a 413 for a body announced over `maxBodyBytes` (an application names
   * its own option); the reply states the size and the limit either way.
   */
  tooLargeAdvice?: string;
  /** Named endpoints, served at `/mcp/<name>` (`GatewayEndpoints` is one); `/mcp` is `gateway`. */
  endpoints?: EndpointSource;
  /** Sessions, streams, event buffers: `@mcpkit/server`'s defaults for what is absent. */
  limits?: StreamableHttpLimits;
}

export interface HttpListener {
  readonly url: URL;
  /** What the listener holds now (sessions, streams, buffered bytes). */
  stats(): StreamableHttpStats;
  close(): Promise<void>;
}

/** A non-loopback bind without a bearer token: refused before anything is bound. */
export class TokenRequiredError extends McpkitError {
  static readonly brand: string = '@mcpkit/gateway.TokenRequiredError';
  override readonly name: string = 'TokenRequiredError';
  constructor(readonly host: string) {
    super(
      'MCPKIT_GATEWAY_TOKEN_REQUIRED',
      `binding ${host} needs a bearer token (only a loopback bind may go without one)`,
    );
  }
}

/** Whether a bind address is loopback, by the server's own list of loopback host names. */
export function isLoopbackBind(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return LOOPBACK_HOSTS.includes(bare.includes(':') ? `[${bare}]` : bare);
}

/** A new random bearer token. */
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
  code = -32001,
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/**
 * The gateway over HTTP, on `@mcpkit/server`'s listener: `/mcp` (Streamable HTTP, both eras)
 * and `GET /healthz`, with the Host/Origin checks against DNS rebinding and, when a token is
 * set, a bearer token on every request (health included).
 */
export async function listenHttp(
  gateway: Pick<Gateway, 'server' | 'health'>,
  options: HttpListenerOptions = {},
): Promise<HttpListener> {
  const host = options.host ?? '127.0.0.1';
  const bindHost = host.replace(/^\[|\]$/g, '');
  const loopback = isLoopbackBind(host);
  if (!loopback && !options.token) throw new TokenRequiredError(host);
  const shown = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
  const allowedHosts = loopback ? [...LOOPBACK_HOSTS] : [...LOOPBACK_HOSTS, shown];
  const maxBodyBytes = options.maxBodyBytes ?? streamableHttpDefaults.maxBodyBytes;
  const { token, tooLargeAdvice } = options;
  // Each named endpoint gets a handler of its own, with the options /mcp has.
  const router = options.endpoints
    ? new EndpointRouter(options.endpoints, { ...options.limits, allowedHosts, maxBodyBytes })
    : undefined;
  const listener = await listenStreamableHttp(gateway.server, {
    host: bindHost,
    port: options.port ?? 0,
    path: '/mcp',
    ...options.limits,
    allowedHosts,
    maxBodyBytes,
    intercept: (req, res, pathname) => {
      // The same DNS-rebinding checks for /healthz as for /mcp.
      const refused = refuseHostOrOrigin(req, allowedHosts, undefined);
      if (refused) {
        refuse(res, 403, `Forbidden: ${refused}`);
        return true;
      }
      if (token !== undefined) {
        const header = req.headers.authorization ?? '';
        const given = header.startsWith('Bearer ') ? header.slice(7) : '';
        if (!sameToken(given, token)) {
          refuse(
            res,
            401,
            'mcpkit gateway: a valid bearer token is required (Authorization: Bearer <token>)',
            { 'www-authenticate': 'Bearer' },
          );
          return true;
        }
      }
      if (pathname === '/healthz') {
        if (req.method !== 'GET') refuse(res, 405, 'GET only');
        else {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          // 200 whatever the backends' states: the gateway itself answers (a probe that
          // restarts it would not bring a backend back); the body says which are down.
          res.end(JSON.stringify(gateway.health()));
        }
        return true;
      }
      const named = router && pathname.startsWith('/mcp/') ? pathname.slice(5) : undefined;
      if (pathname !== '/mcp' && named === undefined) return false;
      // A body announced over the limit is refused before any of it is read; one without a
      // length is cut off by the handler as it arrives (413 as well).
      const announced = Number(req.headers['content-length']);
      if (announced > maxBodyBytes) {
        refuse(
          res,
          413,
          `Payload Too Large: the body is ${announced} bytes, over the gateway's ${maxBodyBytes}-byte limit${tooLargeAdvice ? ` (${tooLargeAdvice})` : ''}`,
          { connection: 'close' },
          -32600,
        );
        return true;
      }
      if (named !== undefined && !router!.handle(named, req, res))
        refuse(res, 404, 'Not Found: no such endpoint', {}, -32000);
      return named !== undefined;
    },
  });
  const close = async () => {
    await router?.close();
    await listener.close();
  };
  return {
    url: new URL(`http://${shown}:${listener.url.port}/mcp`),
    stats: () => listener.handler.stats(),
    close,
  };
}

import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real forward HTTP proxy for Chromium (`--proxy-server`, with
 * `--proxy-bypass-list=<-loopback>` so that 127.0.0.1 goes through it too) that plays a
 * man in the middle of a browser sign-in: it passes every request on unchanged, except
 * that it may rewrite the query of the authorization request going to the identity
 * provider (`rewriteRequest`) and the `Location` of a redirect back to the loopback
 * callback (`rewriteRedirect`). Playwright's `page.route` does not see that redirect; a
 * proxy does, as an attacker's would. Plain HTTP only (every peer here is on 127.0.0.1);
 * CONNECT is refused.
 */
export interface RedirectProxy {
  /** `http://127.0.0.1:<port>`, for `--proxy-server`. */
  url: string;
  /** Changes the query of a GET whose path is `authorizePath` (the IdP's `/auth`). */
  rewriteRequest: ((query: URLSearchParams) => void) | undefined;
  /** Changes the query of a redirect to a path `callbackPath` (the CLI's `/callback`). */
  rewriteRedirect: ((query: URLSearchParams) => void) | undefined;
  /** What was rewritten, in order: `request <url>` or `redirect <url>` (after the change). */
  rewritten: string[];
  close(): Promise<void>;
}

export async function startRedirectProxy(
  options: { authorizePath?: string; callbackPath?: string } = {},
): Promise<RedirectProxy> {
  const authorizePath = options.authorizePath ?? '/auth';
  const callbackPath = options.callbackPath ?? '/callback';
  const proxy: Omit<RedirectProxy, 'url' | 'close'> = {
    rewriteRequest: undefined,
    rewriteRedirect: undefined,
    rewritten: [],
  };
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    let target: URL;
    try {
      // A proxy is sent the absolute URL in the request line.
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { connection: 'close' }).end('not a proxy request');
      return;
    }
    if (target.protocol !== 'http:' || target.hostname !== '127.0.0.1') {
      res.writeHead(403, { connection: 'close' }).end('only http://127.0.0.1 here');
      return;
    }
    if (req.method === 'GET' && target.pathname === authorizePath && proxy.rewriteRequest) {
      proxy.rewriteRequest(target.searchParams);
      proxy.rewritten.push(`request ${target.href}`);
    }
    const headers: Record<string, string | string[] | undefined> = {
      ...req.headers,
      host: target.host,
    };
    delete headers['proxy-connection'];
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      const out = { ...answer.headers };
      const location = answer.headers.location;
      if (location && proxy.rewriteRedirect && (answer.statusCode ?? 0) >= 300) {
        const to = new URL(location, target);
        if (to.hostname === '127.0.0.1' && to.pathname === callbackPath) {
          proxy.rewriteRedirect(to.searchParams);
          out.location = to.href;
          proxy.rewritten.push(`redirect ${to.href}`);
        }
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { connection: 'close' });
      res.end(`proxy: ${error.message}`);
    });
    req.pipe(upstream);
  };
  const server = createServer(forward);
  server.on('connect', (_req, socket) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

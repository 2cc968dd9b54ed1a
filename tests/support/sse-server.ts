import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JsonRpcMessage, JsonRpcPeer, type Transport } from '@mcpkit/jsonrpc';
import { dispatchParsed } from '@mcpkit/jsonrpc/internal';

/** A legacy HTTP+SSE MCP server for tests: GET /sse opens a session, POST /messages?session= feeds it. */
export async function startSseServer(
  setup: (peer: JsonRpcPeer, session: { closed: Promise<void> }) => void,
  options: {
    /** Return false to answer 401 (GET and POST alike). */
    authorize?: (req: IncomingMessage) => boolean | Promise<boolean>;
    /** Serve RFC 9728 metadata naming these authorization servers, and point 401s at it. */
    protectedResource?: { authorizationServers: string[]; scopes?: string[] };
  } = {},
) {
  const sessions = new Map<string, { transport: Transport; res: ServerResponse }>();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const prm = options.protectedResource;
    if (
      prm &&
      req.method === 'GET' &&
      url.pathname === '/.well-known/oauth-protected-resource/sse'
    ) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resource: base(),
          authorization_servers: prm.authorizationServers,
          ...(prm.scopes ? { scopes_supported: prm.scopes } : {}),
        }),
      );
      return;
    }
    if (options.authorize && !(await options.authorize(req))) {
      res
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${base().replace(/\/sse$/, '/.well-known/oauth-protected-resource/sse')}"`,
        })
        .end('unauthorized');
      return;
    }
    if (req.method === 'GET' && url.pathname === '/sse') {
      const id = randomUUID();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`event: endpoint\ndata: /messages?session=${id}\n\n`);
      const transport: Transport = {
        async start() {},
        async close() {},
        async send(message: JsonRpcMessage) {
          res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        },
      };
      const closed = new Promise<void>((resolve) => req.on('close', () => resolve()));
      sessions.set(id, { transport, res });
      const peer = new JsonRpcPeer(transport, { label: 'client' });
      setup(peer, { closed });
      void peer.start();
      closed.then(() => sessions.delete(id));
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const session = sessions.get(url.searchParams.get('session') ?? '');
      if (!session) return void res.writeHead(404).end('no such session');
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        res.writeHead(202).end();
        dispatchParsed(
          JSON.parse(Buffer.concat(parts).toString('utf8')),
          (m) => session.transport.onmessage?.(m),
          (e) => session.transport.onerror?.(e),
        );
      });
      return;
    }
    res.writeHead(404).end();
  });
  const base = () => `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`;
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = base();
  const close = async () => {
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
  return { url, close };
}

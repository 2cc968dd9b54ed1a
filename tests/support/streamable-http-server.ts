import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JsonRpcId, type JsonRpcMessage, JsonRpcPeer, type Transport } from '@mcpkit/jsonrpc';
import { dispatchParsed } from '@mcpkit/jsonrpc/internal';

/**
 * A Streamable HTTP MCP server for tests, on node:http, with knobs for the faults a real
 * server cannot produce on demand: expired sessions, a response stream dropped mid-way
 * (then replayed on GET with Last-Event-ID), required authorization.
 */
export interface StreamableHttpServerOptions {
  /** Registers handlers on each new session's peer. */
  setup: (peer: JsonRpcPeer) => void;
  /** How requests are answered. Default `sse`. */
  responseMode?: 'json' | 'sse';
  /** Offer the standalone GET stream. Default true (false: 405). */
  standaloneGet?: boolean;
  /** Return false to answer 401 with a WWW-Authenticate challenge. */
  authorize?: (req: IncomingMessage) => boolean | Promise<boolean>;
  /**
   * Serve RFC 9728 protected-resource metadata naming these authorization servers at the
   * path-aware well-known URL, and point 401 challenges at it.
   */
  protectedResource?: { authorizationServers: string[]; scopes?: string[] };
  /** Close the first response stream after this many events, before the response. */
  dropFirstResponseStreamAfter?: number;
  /** The `retry` field sent on response streams, in ms. */
  retryMs?: number;
  /** Start a session on any first message, not only `initialize` (for raw JSON-RPC tests). */
  anyMessageStartsSession?: boolean;
}

interface Stream {
  res: ServerResponse | undefined;
  json: boolean;
}

class Session {
  readonly id = randomUUID();
  readonly peer: JsonRpcPeer;
  readonly streams = new Map<string, Stream>();
  readonly history: Array<{ id: string; key: string; data: string }> = [];
  eventCount = 0;
  readonly transport: Transport;

  constructor(private readonly server: StreamableHttpTestServer) {
    const session = this;
    this.transport = {
      async start() {},
      async close() {},
      async send(message: JsonRpcMessage, options?: { relatedRequestId?: JsonRpcId }) {
        session.route(message, options?.relatedRequestId);
      },
    };
    this.peer = new JsonRpcPeer(this.transport, { label: 'client', respondToParseErrors: true });
    server.options.setup(this.peer);
    void this.peer.start();
  }

  route(message: JsonRpcMessage, related: JsonRpcId | undefined): void {
    const isResponse = !('method' in message);
    const key = isResponse
      ? `req:${String(message.id)}`
      : related !== undefined
        ? `req:${String(related)}`
        : 'standalone';
    const own = this.streams.get(key);
    // Notifications and requests without a live stream of their own go on the standalone stream;
    // a response never does (it waits in the history for a resuming GET).
    const stream =
      own && !(own.json && !isResponse)
        ? own
        : isResponse
          ? undefined
          : this.streams.get('standalone');
    const data = JSON.stringify(message);
    if (stream?.json) {
      if (isResponse) {
        stream.res!.writeHead(200, { 'content-type': 'application/json' }).end(data);
        this.streams.delete(key);
      }
      return;
    }
    const id = `${this.id.slice(0, 8)}-${++this.eventCount}`;
    this.history.push({ id, key, data });
    if (stream?.res && !stream.res.destroyed) {
      stream.res.write(`id: ${id}\ndata: ${data}\n\n`);
      const drop = this.server.options.dropFirstResponseStreamAfter;
      if (key !== 'standalone' && drop !== undefined && !this.server.dropped) {
        const written = this.history.filter((e) => e.key === key).length;
        if (written >= drop && !isResponse) {
          this.server.dropped = true;
          // Drop the connection once what was written has gone out, as a network failure would.
          const socket = stream.res.socket;
          stream.res = undefined;
          setTimeout(() => socket?.destroy(), 20);
          return;
        }
      }
      if (isResponse && key !== 'standalone') {
        stream.res.end();
        this.streams.delete(key);
      }
    }
  }
}

export class StreamableHttpTestServer {
  readonly sessions = new Map<string, Session>();
  initializeCount = 0;
  deleteCount = 0;
  getCount = 0;
  dropped = false;
  readonly requests: Array<{ method: string; headers: IncomingMessage['headers'] }> = [];
  /** JSON-RPC methods of every POSTed message, in order. */
  readonly posted: string[] = [];
  /** Response streams the client closed before their response was sent. */
  abandonedStreams = 0;
  url = '';
  private readonly http = createServer((req, res) => {
    this.handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });

  constructor(readonly options: StreamableHttpServerOptions) {}

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
    return this;
  }

  /**
   * Forget every session, as a restarted server would; `endStreams` also ends their open
   * event streams (the standalone GET), as a restart does.
   */
  expireSessions(options: { endStreams?: boolean } = {}): void {
    if (options.endStreams)
      for (const session of this.sessions.values())
        for (const stream of session.streams.values()) stream.res?.end();
    this.sessions.clear();
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests.push({ method: req.method ?? '', headers: req.headers });
    const prm = this.options.protectedResource;
    const prmUrl = this.url.replace(/\/mcp$/, '/.well-known/oauth-protected-resource/mcp');
    if (prm && req.method === 'GET' && req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resource: this.url,
          authorization_servers: prm.authorizationServers,
          ...(prm.scopes ? { scopes_supported: prm.scopes } : {}),
        }),
      );
      return;
    }
    if (this.options.authorize && !(await this.options.authorize(req))) {
      res
        .writeHead(401, {
          'www-authenticate': prm
            ? `Bearer resource_metadata="${prmUrl}"`
            : 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource", scope="mcp"',
        })
        .end('unauthorized');
      return;
    }
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (req.method === 'DELETE') {
      this.deleteCount++;
      if (sessionId) this.sessions.delete(sessionId);
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'GET') {
      this.getCount++;
      const session = sessionId ? this.sessions.get(sessionId) : undefined;
      if (!session) return void res.writeHead(sessionId ? 404 : 400).end();
      const lastEventId = req.headers['last-event-id'] as string | undefined;
      if (!lastEventId && this.options.standaloneGet === false)
        return void res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': keep-alive comment\n\n');
      if (lastEventId) {
        const at = session.history.findIndex((e) => e.id === lastEventId);
        const key = at === -1 ? 'standalone' : session.history[at]!.key;
        for (const e of session.history.slice(at + 1).filter((x) => x.key === key))
          res.write(`id: ${e.id}\ndata: ${e.data}\n\n`);
        const answered = session.history
          .slice(at + 1)
          .some((e) => e.key === key && e.data !== '' && !('method' in JSON.parse(e.data)));
        if (answered) return void res.end();
        session.streams.set(key, { res, json: false });
      } else {
        session.streams.set('standalone', { res, json: false });
      }
      req.on('close', () => {
        for (const [k, s] of session.streams) if (s.res === res) session.streams.delete(k);
      });
      return;
    }
    const body = await new Promise<string>((resolve) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    });
    const message = JSON.parse(body) as JsonRpcMessage;
    this.posted.push('method' in message ? message.method : 'response');
    let session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (
      ('method' in message && message.method === 'initialize') ||
      (!sessionId && this.options.anyMessageStartsSession)
    ) {
      session = new Session(this);
      this.sessions.set(session.id, session);
      this.initializeCount++;
      res.setHeader('mcp-session-id', session.id);
    } else if (!session) {
      return void res
        .writeHead(sessionId ? 404 : 400)
        .end(sessionId ? 'session not found' : 'missing session');
    }
    const deliver = () =>
      dispatchParsed(
        message,
        (m) => session!.transport.onmessage?.(m),
        (e) => session!.transport.onerror?.(e),
      );
    if (!('method' in message && 'id' in message)) {
      res.writeHead(202).end();
      deliver();
      return;
    }
    const key = `req:${String(message.id)}`;
    if ((this.options.responseMode ?? 'sse') === 'json') {
      session!.streams.set(key, { res, json: true });
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (this.options.retryMs !== undefined) res.write(`retry: ${this.options.retryMs}\n\n`);
      // A priming event: an id and no data, so that the client can resume from here.
      const primeId = `${session!.id.slice(0, 8)}-${++session!.eventCount}`;
      session!.history.push({ id: primeId, key, data: '' });
      res.write(`id: ${primeId}\ndata:\n\n`);
      session!.streams.set(key, { res, json: false });
      res.on('close', () => {
        if (!res.writableEnded) this.abandonedStreams++;
      });
    }
    deliver();
  }
}

export function startStreamableHttpServer(
  options: StreamableHttpServerOptions,
): Promise<StreamableHttpTestServer> {
  return new StreamableHttpTestServer(options).listen();
}

/** A handler set that makes the peer a minimal MCP server. */
export function minimalMcpServer(extra?: (peer: JsonRpcPeer) => void) {
  return (peer: JsonRpcPeer) => {
    peer.setRequestHandler('initialize', (p: { protocolVersion: string }) => ({
      protocolVersion: p.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'http-test', version: '1.0.0' },
    }));
    peer.setRequestHandler('tools/list', () => ({
      tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
    }));
    peer.setRequestHandler('tools/call', (p: { arguments?: { text?: string } }) => ({
      content: [{ type: 'text', text: String(p.arguments?.text ?? '') }],
    }));
    extra?.(peer);
  };
}

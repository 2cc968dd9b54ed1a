// A hostile HTTP peer on 127.0.0.1 that answers with bodies too large to keep: huge error
// bodies, SSE events that never end or run to a gigabyte, JSON bodies past the limit with
// and without Content-Length, a body with no end. Bodies are generated as the client reads
// them (backpressure: write until the socket is full, then wait for 'drain'), never built
// in memory, and every response records how much it wrote and whether the client hung up
// before the end, so a test can check that the client stopped reading.
//
// Run alone (`node bodies-server.mjs`) it prints its base URL on stdout and serves until
// stdin closes: that is how the memory test puts it in its own process.

import { createServer } from 'node:http';

const GiB = 1024 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** What each mode answers; paths are `/<mode>` (legacy SSE: `/<mode>/sse` and `/<mode>/message`). */
export const modes = [
  'error-500', // Streamable HTTP POST → 500 text/plain, 1.5 GiB
  'error-400-json', // Streamable HTTP POST → 400 application/json, endless
  'huge-event', // POST → 200 text/event-stream, one 1 GiB event
  'endless-event', // POST → 200 text/event-stream, data lines with no blank line, forever
  'json-length', // POST → 200 application/json, Content-Length 1 GiB
  'json-chunked', // POST → 200 application/json, 1 GiB chunked (no Content-Length)
  'endless-body', // POST → 200 application/json, chunked, no end
  'standalone-event', // a working initialize, then the standalone GET sends an endless event
  'legacy-500', // legacy SSE GET → 500, 1 GiB
  'legacy-post-500', // legacy SSE: endpoint event, then POST → 500, 1.5 GiB
  'legacy-event', // legacy SSE: endpoint event, then one event that never ends
  'ws-refuse', // WebSocket upgrade answered 500 with a 1 GiB body
];

/**
 * Writes `total` bytes (Infinity: forever) from `produce()` as fast as the client reads.
 * Resolves when done or when the client hung up.
 */
function pump(res, record, total, produce = () => CHUNK) {
  return new Promise((resolve) => {
    const write = () => {
      while (!res.destroyed && record.bytes < total) {
        let chunk = produce();
        if (record.bytes + chunk.length > total) chunk = chunk.subarray(0, total - record.bytes);
        record.bytes += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', write);
          return;
        }
      }
      resolve();
    };
    res.once('close', resolve);
    write();
  });
}

function readJson(req) {
  return new Promise((resolve) => {
    const parts = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      // This side is the hostile one; it still does not keep what a client sends past 1 MiB.
      if (size <= 1024 * 1024) parts.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}

function initializeResult(id, version) {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: 'hostile-bodies', version: '1.0.0' },
    },
  };
}

/**
 * Starts the server. `responses` lists every response the hostile modes sent, in order:
 * `{ mode, method, bytes, finished, closed }`, where `closed` resolves once the response
 * is over (finished, or the client hung up).
 */
export async function startBodiesServer() {
  const responses = [];
  const waiters = [];
  const record = (mode, method, res) => {
    let settle;
    const entry = {
      mode,
      method,
      bytes: 0,
      finished: false,
      closed: new Promise((resolve) => {
        settle = resolve;
      }),
    };
    res.on('finish', () => {
      entry.finished = true;
    });
    // A snapshot: what had happened when the connection closed.
    res.on('close', () => settle({ ...entry }));
    responses.push(entry);
    for (const w of waiters.splice(0)) w();
    return entry;
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, mode, tail] = url.pathname.split('/');
    const method = req.method ?? 'GET';
    if (method === 'DELETE') {
      res.writeHead(405).end();
      return;
    }
    const body = method === 'POST' ? await readJson(req) : undefined;
    const answersRequest = body && typeof body === 'object' && 'id' in body && 'method' in body;

    // Legacy HTTP+SSE: the event stream on GET /<mode>/sse, messages to POST /<mode>/message.
    if (mode?.startsWith('legacy')) {
      if (method === 'GET' && tail === 'sse') {
        if (mode === 'legacy-500') {
          res.writeHead(500, { 'content-type': 'text/plain' });
          await pump(res, record(mode, method, res), GiB);
          if (!res.destroyed) res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`event: endpoint\ndata: /${mode}/message?session=1\n\n`);
        if (mode === 'legacy-event') {
          const line = Buffer.from(`data: ${'x'.repeat(64 * 1024 - 7)}\n`);
          // Wait for the client's first POST, so the event arrives while a request is pending.
          await new Promise((resolve) => server.once('legacy-post', resolve));
          await pump(res, record(mode, method, res), Number.POSITIVE_INFINITY, () => line);
        }
        return; // held open, as an event stream is
      }
      if (method === 'POST' && tail === 'message') {
        server.emit('legacy-post');
        if (mode === 'legacy-post-500') {
          res.writeHead(500, { 'content-type': 'text/plain' });
          await pump(res, record(mode, method, res), 1.5 * GiB);
          if (!res.destroyed) res.end();
          return;
        }
        res.writeHead(202).end();
        return;
      }
      res.writeHead(404).end();
      return;
    }

    if (mode === 'standalone-event') {
      if (method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const line = Buffer.from(`data: ${'y'.repeat(64 * 1024 - 7)}\n`);
        await pump(res, record(mode, method, res), Number.POSITIVE_INFINITY, () => line);
        return;
      }
      if (answersRequest && body.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify(initializeResult(body.id, body.params?.protocolVersion)));
        return;
      }
      if (answersRequest) {
        // server/discover and anything else: unknown here, so the client speaks the legacy era.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: body.id,
            error: { code: -32601, message: 'Method not found' },
          }),
        );
        return;
      }
      res.writeHead(202).end();
      return;
    }

    if (method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    switch (mode) {
      case 'error-500': {
        res.writeHead(500, { 'content-type': 'text/plain' });
        await pump(res, record(mode, method, res), 1.5 * GiB);
        if (!res.destroyed) res.end();
        return;
      }
      case 'error-400-json': {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.write(
          `{"jsonrpc":"2.0","id":${JSON.stringify(body?.id ?? null)},"error":{"code":-32600,"message":"`,
        );
        await pump(res, record(mode, method, res), Number.POSITIVE_INFINITY);
        return;
      }
      case 'huge-event': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"jsonrpc":"2.0","id":1,"result":{"pad":"');
        const entry = record(mode, method, res);
        await pump(res, entry, GiB);
        if (!res.destroyed) res.end('"}}\n\n');
        return;
      }
      case 'endless-event': {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const line = Buffer.from(`data: ${'z'.repeat(64 * 1024 - 7)}\n`);
        await pump(res, record(mode, method, res), Number.POSITIVE_INFINITY, () => line);
        return;
      }
      case 'json-length': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(GiB) });
        await pump(res, record(mode, method, res), GiB);
        if (!res.destroyed) res.end();
        return;
      }
      case 'json-chunked': {
        res.writeHead(200, { 'content-type': 'application/json' });
        await pump(res, record(mode, method, res), GiB);
        if (!res.destroyed) res.end();
        return;
      }
      case 'endless-body': {
        res.writeHead(200, { 'content-type': 'application/json' });
        await pump(res, record(mode, method, res), Number.POSITIVE_INFINITY);
        return;
      }
      default:
        res.writeHead(404).end();
    }
  });

  server.on('upgrade', (req, socket) => {
    // ws-refuse: the upgrade is refused with a body of a gigabyte, written as it is read.
    const res = {
      destroyed: false,
      write: (chunk) => socket.write(chunk),
      once: (event, fn) => socket.once(event === 'close' ? 'close' : event, fn),
      on: (event, fn) => socket.on(event === 'finish' ? 'finish' : event, fn),
    };
    socket.on('close', () => {
      res.destroyed = true;
    });
    socket.on('error', () => {});
    socket.write(
      `HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: ${GiB}\r\n\r\n`,
    );
    const entry = record('ws-refuse', req.method ?? 'GET', res);
    void pump(res, entry, GiB).then(() => socket.end());
  });

  server.keepAliveTimeout = 1000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    port,
    responses,
    /** The first response of `mode` (waits for it). */
    async response(mode) {
      for (;;) {
        const found = responses.find((r) => r.mode === mode);
        if (found) return found;
        await new Promise((resolve) => waiters.push(resolve));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startBodiesServer();
  process.stdout.write(`${server.baseUrl}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
  process.stdin.on('close', () => void server.close().then(() => process.exit(0)));
}

import { once } from 'node:events';
import { type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '../mcp-server.js';
import { listenStreamableHttp, type StreamableHttpListener } from './listen.js';
import { acceptsMediaType, mediaTypeOf } from './media-type.js';

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
});

/** One POST over a real connection; the status and the body. */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let listener: StreamableHttpListener | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await listener?.close();
  listener = undefined;
});

function serve(options: Parameters<typeof listenStreamableHttp>[1] = {}) {
  const server = new McpServer({ info: { name: 'face', version: '1' } });
  return listenStreamableHttp(server, options);
}

describe('media types, parsed (the includes() check let text/plain;charset=application/json in)', () => {
  it('mediaTypeOf takes what stands before the first ";", trimmed and lowercased', () => {
    expect(mediaTypeOf('text/plain;charset=application/json')).toBe('text/plain');
    expect(mediaTypeOf(' Application/JSON ; charset=utf-8')).toBe('application/json');
    expect(mediaTypeOf('application/json-patch+json')).toBe('application/json-patch+json');
    expect(mediaTypeOf('application/jsonx')).toBe('application/jsonx');
    expect(mediaTypeOf('xapplication/json')).toBe('xapplication/json');
    expect(mediaTypeOf('application json')).toBeUndefined();
    expect(mediaTypeOf('')).toBeUndefined();
    expect(mediaTypeOf(undefined)).toBeUndefined();
  });

  it('acceptsMediaType compares whole ranges, honours q=0 and wildcards', () => {
    expect(acceptsMediaType('application/json, text/event-stream', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('text/*', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('*/*;q=0.1', 'text/event-stream')).toBe(true);
    expect(acceptsMediaType('text/event-stream;q=0', 'text/event-stream')).toBe(false);
    expect(acceptsMediaType('text/event-streamx', 'text/event-stream')).toBe(false);
    expect(acceptsMediaType('application/x;p="text/event-stream"', 'text/event-stream')).toBe(
      false,
    );
    expect(acceptsMediaType(undefined, 'application/json')).toBe(false);
  });

  it('answers seen before are remembered per type and per value, and stay bounded', () => {
    // The same Accept answered for two types: each keeps its own answer.
    for (let i = 0; i < 3; i++) {
      expect(acceptsMediaType('application/json', 'application/json')).toBe(true);
      expect(acceptsMediaType('application/json', 'text/event-stream')).toBe(false);
      expect(mediaTypeOf('text/plain;charset=application/json')).toBe('text/plain');
      expect(mediaTypeOf('application json')).toBeUndefined();
    }
    // Many distinct values (more than the memo holds) and a long one: answers stay right.
    for (let i = 0; i < 500; i++) {
      expect(acceptsMediaType(`text/x${i}, text/event-stream;q=0`, 'text/event-stream')).toBe(
        false,
      );
      expect(mediaTypeOf(`application/x${i}`)).toBe(`application/x${i}`);
    }
    const long = `${'a/b;p=1;'.repeat(100)}`;
    expect(mediaTypeOf(long)).toBe('a/b');
    expect(acceptsMediaType(`${'text/x, '.repeat(60)}text/event-stream`, 'text/event-stream')).toBe(
      true,
    );
    expect(acceptsMediaType('text/event-stream;q=0', 'text/event-stream')).toBe(false);
  });

  it('a POST with Content-Type text/plain;charset=application/json gets 415', async () => {
    listener = await serve();
    const res = await post(
      listener.url,
      { 'content-type': 'text/plain;charset=application/json' },
      initialize,
    );
    expect(res.status).toBe(415);
    expect(listener.handler.sessionCount).toBe(0);
    const ok = await post(
      listener.url,
      { 'content-type': 'Application/JSON; charset=utf-8' },
      initialize,
    );
    expect(ok.status).toBe(200);
    // A JSON answer goes out with its length, not in chunks.
    expect(ok.headers['content-type']).toBe('application/json');
    expect(ok.headers['content-length']).toBe(String(Buffer.byteLength(ok.body)));
    expect(ok.headers['transfer-encoding']).toBeUndefined();
    expect(JSON.parse(ok.body)).toMatchObject({ jsonrpc: '2.0', id: 1 });
  });
});

describe('Origin: scheme, host and port of the server itself (the host alone was compared)', () => {
  it('refuses an origin on the same host but another port, and allows its own and a listed one', async () => {
    listener = await serve({ allowedOrigins: ['HTTP://Localhost:3000/'] });
    const port = listener.url.port;
    const json = { 'content-type': 'application/json' };
    const other = await post(
      listener.url,
      { ...json, origin: `http://127.0.0.1:${Number(port) === 1 ? 2 : Number(port) - 1}` },
      initialize,
    );
    expect(other.status).toBe(403);
    expect(
      (await post(listener.url, { ...json, origin: 'https://127.0.0.1:' + port }, initialize))
        .status,
    ).toBe(403);
    expect((await post(listener.url, { ...json, origin: 'null' }, initialize)).status).toBe(403);
    expect(
      (await post(listener.url, { ...json, origin: `http://127.0.0.1:${port}` }, initialize))
        .status,
    ).toBe(200);
    expect(
      (await post(listener.url, { ...json, origin: 'http://localhost:3000' }, initialize)).status,
    ).toBe(200);
  });

  it('the page-on-localhost lock-out: refused requests take no session slot, the real client gets one', async () => {
    listener = await serve({ maxSessions: 2 });
    for (let i = 0; i < 5; i++) {
      const attack = await post(
        listener.url,
        { 'content-type': 'text/plain;charset=application/json', origin: 'http://localhost:3000' },
        initialize,
      );
      expect([403, 415]).toContain(attack.status);
      const sameHostOtherPort = await post(
        listener.url,
        { 'content-type': 'application/json', origin: 'http://localhost:3000' },
        initialize,
      );
      expect(sameHostOtherPort.status).toBe(403);
    }
    expect(listener.handler.sessionCount).toBe(0);
    const user = await post(listener.url, { 'content-type': 'application/json' }, initialize);
    expect(user.status).toBe(200);
    expect(listener.handler.sessionCount).toBe(1);
  });
});

describe('slow requests and connection caps', () => {
  it('a client that sends its headers, then trickles the body, gets 408 and is closed after requestTimeoutMs', async () => {
    listener = await serve({ requestTimeoutMs: 300, headersTimeoutMs: 300 });
    const socket = connect(Number(listener.url.port), '127.0.0.1');
    sockets.push(socket);
    await once(socket, 'connect');
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${listener.url.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    );
    // One byte at a time, for as long as the connection stays open.
    const trickle = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(' ');
    }, 20);
    let seen = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      seen += chunk;
    });
    socket.on('error', () => {});
    await once(socket, 'close');
    clearInterval(trickle);
    expect(seen).toMatch(/^HTTP\/1\.1 408/);
  });

  it.each([
    ['maxConnections', { maxConnections: 2 }],
    ['maxConnectionsPerAddress', { maxConnectionsPerAddress: 2 }],
  ] as const)(
    '%s: a connection over the cap is closed at once, the others keep working',
    async (_name, caps) => {
      listener = await serve(caps);
      const port = Number(listener.url.port);
      const open = async () => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        socket.on('error', () => {});
        await once(socket, 'connect');
        return socket;
      };
      const first = await open();
      await open();
      // The server counts a connection once it has accepted it: wait for both.
      await new Promise<void>((resolve, reject) => {
        const check = () =>
          listener!.httpServer.getConnections((error, count) => {
            if (error) reject(error);
            else if (count >= 2) resolve();
            else setImmediate(check);
          });
        check();
      });
      const third = connect(port, '127.0.0.1');
      sockets.push(third);
      third.on('error', () => {});
      let answered = '';
      third.on('data', (chunk: Buffer) => {
        answered += chunk.toString();
      });
      third.on('connect', () =>
        third.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
      );
      await once(third, 'close');
      expect(answered).toBe('');
      // The first connection still gets its answer.
      let reply = '';
      first.setEncoding('utf8');
      first.on('data', (chunk: string) => {
        reply += chunk;
      });
      first.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(initialize)}\r\n\r\n${initialize}`,
      );
      await new Promise<void>((resolve) => {
        const done = () => (/\r\n\r\n/.test(reply) ? resolve() : undefined);
        first.on('data', done);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 200/);
    },
  );
});

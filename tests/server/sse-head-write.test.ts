import type { Socket } from 'node:net';
import { listenStreamableHttp, McpServer, type StreamableHttpListener } from '@mcpkit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { legacyHeaders, openRawSession, openSse } from './support/raw-http.js';

/**
 * An SSE answer's head goes out in the same write as its priming event (or its first
 * event): a proxy in front, or the client, then has both or neither. With the head in a
 * write of its own, a replica killed between the two writes left HAProxy's client a stream
 * with no event id; the SDK v1 client cannot resume such a stream and waits on its call
 * until its own timeout (tests/gateway/gateway-replicas-sigkill.test.ts caught it about
 * once in six runs). What is checked here is every write the server's socket is asked to
 * make, recorded on the real socket of a real connection on 127.0.0.1 (observed, not
 * replaced): a kill can land between two writes, never inside one.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** Each write the server's sockets are asked for, as text (a writev's pieces joined). */
function recordWrites(listener: StreamableHttpListener): string[] {
  const writes: string[] = [];
  listener.httpServer.on('connection', (socket: Socket) => {
    const s = socket as unknown as {
      _write(chunk: unknown, encoding: string, cb: () => void): void;
      _writev(chunks: Array<{ chunk: unknown }>, cb: () => void): void;
    };
    const write = s._write.bind(socket);
    const writev = s._writev.bind(socket);
    s._write = (chunk, encoding, cb) => {
      writes.push(String(chunk));
      write(chunk, encoding, cb);
    };
    s._writev = (chunks, cb) => {
      writes.push(chunks.map((c) => String(c.chunk)).join(''));
      writev(chunks, cb);
    };
  });
  return writes;
}

async function start(responseMode?: 'sse') {
  let release: () => void = () => {};
  const released = new Promise<void>((r) => {
    release = r;
  });
  let answered: () => void = () => {};
  const done = new Promise<void>((r) => {
    answered = r;
  });
  const server = new McpServer({ info: { name: 'held', version: '1.0.0' } });
  server.registerTool(
    'held',
    { description: 'Answers once the test lets it', inputSchema: { type: 'object' } },
    async () => {
      await released;
      // Once the answer has gone through the server's microtasks (sent or kept).
      setImmediate(answered);
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  const listener = await listenStreamableHttp(server, {
    retryMs: 250,
    ...(responseMode ? { responseMode } : {}),
  });
  cleanups.push(async () => {
    release();
    await listener.close();
    await server.close();
  });
  return { listener, writes: recordWrites(listener), release, done };
}

const connections = (listener: StreamableHttpListener) =>
  new Promise<number>((resolve, reject) =>
    listener.httpServer.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

async function openSession(url: URL): Promise<Record<string, string>> {
  return {
    ...legacyHeaders,
    'mcp-session-id': await openRawSession(url),
    'mcp-protocol-version': '2025-11-25',
  };
}

/** A POST calling the `held` tool under request id `id`, read as an SSE stream. */
const callHeld = (listener: StreamableHttpListener, headers: Record<string, string>, id: number) =>
  openSse(
    listener.url,
    'POST',
    headers,
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'held' } }),
  );

/** The write that carried the head of the SSE response (content-type text/event-stream). */
function headWrite(writes: string[]): string {
  const found = writes.filter((w) => /content-type: text\/event-stream/i.test(w));
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('an SSE answer starts with its head and first event in one write', () => {
  it("a POST's stream (responseMode 'sse'): the head and the priming event", async () => {
    const { listener, writes, release } = await start('sse');
    const headers = await openSession(listener.url);
    writes.length = 0;
    const call = await callHeld(listener, headers, 2);
    const priming = await call.next();
    expect(priming).toMatchObject({ data: '', retry: '250' });
    const head = headWrite(writes);
    expect(head).toContain(`id: ${priming!.id}\nretry: 250\ndata: \n\n`);
    // The answer is written later, on its own: the stream is resumable from the priming id.
    release();
    const answer = await call.next();
    expect(JSON.parse(answer!.data)).toMatchObject({
      id: 2,
      result: { content: [{ text: 'done' }] },
    });
    expect(head).not.toContain('"result"');
  });

  it('the standalone GET stream: the head and the priming event', async () => {
    const { listener, writes } = await start();
    const headers = await openSession(listener.url);
    writes.length = 0;
    const stream = await openSse(listener.url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': headers['mcp-session-id']!,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(stream.status).toBe(200);
    const priming = await stream.next();
    expect(priming?.data).toBe('');
    expect(headWrite(writes)).toContain(`id: ${priming!.id}\nretry: 250\ndata: \n\n`);
  });

  it('a resumption: the head and the events replayed', async () => {
    const { listener, writes, release, done } = await start('sse');
    const headers = await openSession(listener.url);
    const call = await callHeld(listener, headers, 3);
    const priming = await call.next();
    // The client drops the stream before the answer; the server notices, then answers.
    const before = await connections(listener);
    call.destroy();
    while ((await connections(listener)) >= before) await new Promise((r) => setImmediate(r));
    release();
    await done;
    // The answer was kept in the session's buffer: the resumption replays it with the head.
    writes.length = 0;
    const resumed = await openSse(listener.url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': headers['mcp-session-id']!,
      'mcp-protocol-version': '2025-11-25',
      'last-event-id': priming!.id!,
    });
    expect(resumed.status).toBe(200);
    const answer = await resumed.next();
    expect(JSON.parse(answer!.data)).toMatchObject({
      id: 3,
      result: { content: [{ text: 'done' }] },
    });
    expect(headWrite(writes)).toContain(answer!.data);
  });
});

import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { McpServer } from './mcp-server.js';
import { serveStdio } from './serve-stdio.js';

function lines(stream: PassThrough): () => Promise<any> {
  let buffer = '';
  const queue: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const w = waiters.shift();
      if (w) w(line);
      else queue.push(line);
    }
  });
  return () =>
    new Promise((resolve) => {
      const line = queue.shift();
      if (line !== undefined) resolve(JSON.parse(line));
      else waiters.push((l) => resolve(JSON.parse(l)));
    });
}

describe('serveStdio', () => {
  it('answers NDJSON requests, reports a non-JSON line with -32700, and closes when stdin ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const next = lines(stdout);
    const server = new McpServer({ info: { name: 'stdio-unit', version: '1.0.0' } });
    server.registerTool('echo', {}, (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args) }],
    }));
    const session = await serveStdio(server, { stdin, stdout });

    stdin.write('this is not json\n');
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });

    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'u', version: '1' } } })}\n`,
    );
    expect((await next()).result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'stdio-unit' },
    });
    // Two messages in one chunk, the second split across chunks.
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'echo', arguments: { a: 1 } },
    });
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${call.slice(0, 10)}`,
    );
    stdin.write(`${call.slice(10)}\n`);
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: '{"a":1}' }] },
    });

    stdin.end();
    await session.closed;
    expect(server.sessionCount).toBe(0);
    expect(stdout.writableEnded).toBe(false);
  });

  it('answers to requests that arrived in one chunk leave in one stdout write, not one each', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const writes: string[] = [];
    const write = stdout.write.bind(stdout);
    stdout.write = ((chunk: string, ...rest: never[]) => {
      writes.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof stdout.write;
    const next = lines(stdout);
    const server = new McpServer({ info: { name: 'stdio-unit', version: '1.0.0' } });
    server.registerTool('echo', {}, (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args) }],
    }));
    const session = await serveStdio(server, { stdin, stdout });
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'u', version: '1' } } })}\n`,
    );
    await next();
    writes.length = 0;
    const call = (id: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { id } },
      });
    stdin.write(`${call(2)}\n${call(3)}\n${call(4)}\n`);
    const answers = [await next(), await next(), await next()];
    expect(answers.map((a) => a.id)).toEqual([2, 3, 4]);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n').filter(Boolean)).toHaveLength(3);
    stdin.end();
    await session.closed;
  });
});

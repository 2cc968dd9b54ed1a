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
});

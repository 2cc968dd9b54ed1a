import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { RpcError } from '@mcpkit/jsonrpc';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayArgs, gatewayStdio, resultText, startHttpGateway } from './gateway-process.js';

/**
 * `mcpkit serve --max-message-bytes <n>` bounds what the gateway accepts: its backends'
 * messages, its stdio client's lines and its HTTP request bodies. Each over-limit message
 * gets a clear error, and the gateway keeps serving. The built CLI as a real child process.
 */
const LIMIT = 4096;
const probe = {
  command: process.execPath,
  args: [fileURLToPath(new URL('./roots-probe-server.mjs', import.meta.url))],
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const text = resultText;

/** What each gateway started by `stdioGateway` wrote to its stderr, by its client. */
const gatewayStderr = new WeakMap<McpClient, () => string>();

async function stdioGateway(servers: Record<string, unknown> = { probe }) {
  const { args, env, cleanup } = gatewayArgs(servers, ['--max-message-bytes', String(LIMIT)]);
  cleanups.push(cleanup);
  const client = new McpClient({ name: 'limit-test', era: 'legacy', eraCache: false });
  const transport = gatewayStdio(args, env);
  await client.connect(transport);
  gatewayStderr.set(client, () => transport.stderrTail());
  cleanups.push(() => client.close());
  return client;
}

/**
 * A minimal Streamable HTTP backend of the 2025 era on 127.0.0.1 (JSON answers only): its
 * one tool `big {bytes}` answers with that many bytes of text.
 */
async function bigHttpBackend() {
  const server = createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const message = JSON.parse(body) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string; arguments?: { bytes?: number } };
      };
      if (message.id === undefined) return void res.writeHead(202).end();
      const result =
        message.method === 'initialize'
          ? {
              protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'big-http', version: '1.0.0' },
            }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'big', inputSchema: { type: 'object' } }] }
            : message.method === 'tools/call'
              ? {
                  content: [
                    { type: 'text', text: 'x'.repeat(message.params?.arguments?.bytes ?? 0) },
                  ],
                }
              : {};
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'big-1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('mcpkit serve --max-message-bytes', () => {
  it('a backend answer over the limit: the client gets an error naming the server and the flag, and the gateway keeps serving', async () => {
    const client = await stdioGateway();
    const over = await client.callTool({ name: 'probe__big', arguments: { bytes: LIMIT * 2 } });
    expect(over.isError).toBe(true);
    expect(text(over)).toContain('server "probe"');
    expect(text(over)).toContain(`${LIMIT}-byte message limit`);
    expect(text(over)).toContain('mcpkit serve with a larger --max-message-bytes');
    const under = await client.callTool({ name: 'probe__big', arguments: { bytes: 10 } });
    expect(text(under)).toBe('x'.repeat(10));
  });

  it('an HTTP backend answer over the limit: the same clear error naming the server and the flag', async () => {
    const backend = await bigHttpBackend();
    cleanups.push(() => backend.close());
    const client = await stdioGateway({ web: { type: 'http', url: backend.url } });
    const over = await client.callTool({ name: 'web__big', arguments: { bytes: LIMIT * 2 } });
    expect(over.isError).toBe(true);
    expect(text(over)).toContain('server "web"');
    expect(text(over)).toContain(`${LIMIT}-byte message limit`);
    expect(text(over)).toContain('mcpkit serve with a larger --max-message-bytes');
    const under = await client.callTool({ name: 'web__big', arguments: { bytes: 10 } });
    expect(text(under)).toBe('x'.repeat(10));
  });

  it('a stdio client line over the limit is answered -32600 naming the flag (not left unanswered), and the gateway keeps serving', async () => {
    const client = await stdioGateway();
    const refused = await client
      .callTool({ name: 'probe__echo', arguments: { text: 'y'.repeat(LIMIT * 2) } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(RpcError.isInstance(refused)).toBe(true);
    expect((refused as RpcError).rpcCode).toBe(-32600);
    expect((refused as Error).message).toContain(`${LIMIT}-byte message limit`);
    expect((refused as Error).message).toContain('--max-message-bytes');
    const echoed = await client.callTool({
      name: 'probe__echo',
      arguments: { text: 'still here' },
    });
    expect(text(echoed)).toBe('still here');
    // The gateway's own warning names serve's flag, not the library's option.
    const stderr = gatewayStderr.get(client)!();
    expect(stderr).toContain(`over the ${LIMIT}-byte limit`);
    expect(stderr).toContain('--max-message-bytes <n>');
    expect(stderr).not.toContain('maxMessageBytes');
  });

  it('a stdio client answer over the limit fails only the request it answers (the backend is told), never answered back as if it were a request', async () => {
    const { args, env, cleanup } = gatewayArgs({ probe }, ['--max-message-bytes', String(LIMIT)]);
    cleanups.push(cleanup);
    const client = new ClientV1(
      { name: 'sdk-v1', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    const huge = [{ uri: `file:///work/${'r'.repeat(LIMIT * 2)}`, name: 'huge' }];
    let roots = huge;
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
    // A -32600 sent back for the dropped answer would reach the client as a response to
    // an id it never used (or worse, to one of its own requests).
    const clientErrors: Error[] = [];
    client.onerror = (error) => clientErrors.push(error);
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
    cleanups.push(() => client.close());
    const outcomes = async (count: number) =>
      JSON.parse(
        text(await client.callTool({ name: 'probe__roots', arguments: { count } })),
      ) as Array<{ roots?: unknown; error?: { message: string } }>;
    const [first] = await outcomes(1);
    expect(first?.roots).toBeUndefined();
    expect(first?.error?.message).toContain(`over the gateway's ${LIMIT}-byte message limit`);
    // The gateway keeps serving, and the next (small) answer goes through.
    roots = [{ uri: 'file:///work/small', name: 'small' }];
    await client.sendRootsListChanged();
    expect((await outcomes(2))[1]).toEqual({ roots });
    expect(clientErrors).toEqual([]);
  });

  it('http: a request body over the limit gets 413 naming the flag (announced or chunked), and the gateway keeps serving', async () => {
    const gateway = await startHttpGateway({ probe }, ['--max-message-bytes', String(LIMIT)]);
    cleanups.push(() => gateway.close());
    const initialize = (padding: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1.0.0', padding },
        },
      });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...gateway.headers,
    };
    const announced = await fetch(gateway.url, {
      method: 'POST',
      headers,
      body: initialize('z'.repeat(LIMIT * 2)),
    });
    expect(announced.status).toBe(413);
    const body = (await announced.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`${LIMIT}-byte limit`);
    expect(body.error.message).toContain('--max-message-bytes');

    // No content-length: the body is cut off as it arrives.
    const chunks = [initialize('z'.repeat(LIMIT * 2))];
    const chunked = await fetch(gateway.url, {
      method: 'POST',
      headers,
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    await chunked.body?.cancel();

    const client = new McpClient({ name: 'limit-test', era: 'legacy', eraCache: false });
    await client.connect(
      new StreamableHttpTransport({ url: gateway.url, headers: gateway.headers }),
    );
    cleanups.push(() => client.close());
    const echoed = await client.callTool({ name: 'probe__echo', arguments: { text: 'ok' } });
    expect(text(echoed)).toBe('ok');
  });
});

import { JsonRpcPeer, RpcError } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from './mcp-server.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function connect(server: McpServer): Promise<JsonRpcPeer> {
  const [clientEnd, serverEnd] = createInProcessPair();
  await server.connect(serverEnd);
  const client = new JsonRpcPeer(clientEnd);
  await client.start();
  await client.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'unit', version: '1' },
  });
  return client;
}

/** A server whose hooks log `+uri` / `-uri` with a number per subscriber. */
function logged(refuse?: string) {
  const log: string[] = [];
  const ids = new Map<object, number>();
  const who = (subscriber: object) => {
    if (!ids.has(subscriber)) ids.set(subscriber, ids.size + 1);
    return ids.get(subscriber);
  };
  const server = new McpServer({
    info: { name: 'unit', version: '1.0.0' },
    onsubscribe: (uri, { subscriber }) => {
      if (uri === refuse) throw new RpcError(-32602, `no updates for ${uri}`);
      log.push(`+${uri}@${who(subscriber)}`);
    },
    onunsubscribe: (uri, { subscriber }) => {
      log.push(`-${uri}@${who(subscriber)}`);
    },
  });
  server.registerResource('mem://a', { name: 'a' }, () => ({ contents: [] }));
  closers.push(() => server.close());
  return { server, log };
}

describe('McpServer: resources/subscribe hooks', () => {
  it('tells the host of each subscriber once per URI, of unsubscribe, and of a connection that ends', async () => {
    const { server, log } = logged();
    const one = await connect(server);
    const two = await connect(server);
    await one.request('resources/subscribe', { uri: 'mem://a' });
    await one.request('resources/subscribe', { uri: 'mem://a' });
    await two.request('resources/subscribe', { uri: 'mem://a' });
    await one.request('resources/unsubscribe', { uri: 'mem://a' });
    await one.request('resources/unsubscribe', { uri: 'mem://a' });
    expect(log).toEqual(['+mem://a@1', '+mem://a@2', '-mem://a@1']);
    // The second connection ends while subscribed: its subscription ends with it.
    const ended = new Promise<void>((resolve) => {
      const hook = server.onunsubscribe!;
      server.onunsubscribe = (uri, context) => {
        void hook(uri, context);
        resolve();
      };
    });
    await two.close();
    await ended;
    expect(log).toEqual(['+mem://a@1', '+mem://a@2', '-mem://a@1', '-mem://a@2']);
  });

  it("an onsubscribe rejection fails resources/subscribe with the hook's error", async () => {
    const { server, log } = logged('mem://a');
    const client = await connect(server);
    await expect(client.request('resources/subscribe', { uri: 'mem://a' })).rejects.toMatchObject({
      rpcCode: -32602,
      message: expect.stringContaining('no updates for mem://a'),
    });
    // Not subscribed: no update reaches it, and no unsubscribe hook on close.
    await client.close();
    expect(log).toEqual([]);
  });
});

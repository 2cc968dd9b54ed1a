import { JsonRpcPeer, RpcError } from '@mcpkit/jsonrpc';
import { McpManager } from '@mcpkit/manager';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { expect, test } from 'vitest';
import { resolved } from './helpers.js';

/**
 * MOCK server (in-process): no real peer answers -32042 on demand. Its tool first demands a
 * URL elicitation, then succeeds once the user "visited" the URL.
 */
function urlElicitingServer() {
  const [client, server] = createInProcessPair();
  const peer = new JsonRpcPeer(server, { label: 'mock url-elicitation server' });
  let visited = false;
  peer.setRequestHandler('initialize', (params: { protocolVersion: string }) => ({
    protocolVersion: params.protocolVersion,
    capabilities: { tools: {} },
    serverInfo: { name: 'mock-url-elicitation', version: '1.0.0' },
  }));
  peer.setRequestHandler('tools/list', () => ({
    tools: [{ name: 'pay', inputSchema: { type: 'object' } }],
  }));
  peer.setRequestHandler('tools/call', () => {
    if (!visited)
      throw new RpcError(-32042, 'URL elicitation required', {
        elicitations: [
          {
            mode: 'url',
            elicitationId: 'e1',
            url: 'https://pay.example/checkout',
            message: 'Confirm the payment',
          },
        ],
      });
    return { content: [{ type: 'text', text: 'paid' }] };
  });
  void peer.start();
  return { client, visit: () => (visited = true), close: () => peer.close() };
}

test('MOCK -32042 (in-process sdk entry): a URL elicitation goes to the host callback, then the call is retried once', async () => {
  const mock = urlElicitingServer();
  const seen: string[] = [];
  await using manager = new McpManager({
    servers: [resolved('shop', { type: 'sdk', name: 'shop' })],
    inProcess: { shop: () => mock.client },
    handlers: {
      urlElicitation: (server, elicitations) => {
        seen.push(`${server}: ${elicitations.map((e) => e.url).join(', ')}`);
        mock.visit();
      },
    },
  });
  await manager.connectAll();
  expect(manager.state('shop')?.state).toBe('connected');
  await manager.tools();
  const result = await manager.callHostTool('mcp__shop__pay', {});
  expect(result.text).toBe('paid');
  expect(seen).toEqual(['shop: https://pay.example/checkout']);
  await mock.close();
});

test('MOCK -32042 without a host callback: the typed error reaches the caller', async () => {
  const mock = urlElicitingServer();
  await using manager = new McpManager({
    servers: [resolved('shop', { type: 'sdk', name: 'shop' })],
    inProcess: { shop: () => mock.client },
  });
  await manager.connectAll();
  const error = await manager.callTool('shop', 'pay', {}).catch((e: Error) => e);
  expect((error as Error).name).toBe('UrlElicitationRequiredError');
  await mock.close();
});

// @mcpkit/transport-websocket: JSON-RPC over a WebSocket with the "mcp" subprotocol.
import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { WebSocketTransport } from '@mcpkit/transport-websocket';

export async function main(url: string): Promise<unknown> {
  const transport = new WebSocketTransport({
    url,
    name: 'ws',
    pingIntervalMs: 15_000,
    pongTimeoutMs: 5_000,
  });
  const peer = new JsonRpcPeer(transport);
  await peer.start();
  try {
    return await peer.request('echo', { hello: 'over websocket' }, { timeoutMs: 5_000 });
  } finally {
    await peer.close();
  }
}

const [, script, url] = process.argv;
if (url && import.meta.url === `file://${script}`) console.log(await main(url));

import type { AddressInfo } from 'node:net';
import { type JsonRpcMessage, JsonRpcPeer, type Transport } from '@mcpkit/jsonrpc';
import { dispatchParsed } from '@mcpkit/jsonrpc/internal';
import { WebSocketServer } from 'ws';

/** No package offers an MCP WebSocket server: this one, on `ws`, serves tests. */
export async function startWsServer(
  setup: (peer: JsonRpcPeer, connection: { closed: Promise<void> }) => void,
) {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    maxPayload: 64 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  wss.on('connection', (socket) => {
    const transport: Transport = {
      async start() {},
      async close() {},
      send: (message: JsonRpcMessage) =>
        new Promise<void>((resolve, reject) =>
          socket.send(JSON.stringify(message), (e) => (e ? reject(e) : resolve())),
        ),
    };
    socket.on('message', (data) =>
      dispatchParsed(
        JSON.parse(data.toString()),
        (m) => transport.onmessage?.(m),
        (e) => transport.onerror?.(e),
      ),
    );
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const peer = new JsonRpcPeer(transport, { label: 'client' });
    setup(peer, { closed });
    void peer.start();
  });
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`;
  const kill = async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  };
  return { url, kill };
}

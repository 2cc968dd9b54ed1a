import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { McpClient } from './index.js';

describe('subscriptions/listen', () => {
  it('a connection that closes before the acknowledgement rejects listen() and leaves no unhandled rejection', async () => {
    const [clientEnd, serverEnd] = createInProcessPair();
    // A 2026-07-28 server that takes the listen and closes before it acknowledges it.
    const server = new JsonRpcPeer(serverEnd);
    server.setRequestHandler('server/discover', () => ({
      supportedVersions: ['2026-07-28'],
      capabilities: { resources: { subscribe: true } },
    }));
    let taken!: () => void;
    const listening = new Promise<void>((resolve) => {
      taken = resolve;
    });
    server.setRequestHandler('subscriptions/listen', () => {
      taken();
      return new Promise(() => {});
    });
    await server.start();
    const client = new McpClient({ eraCache: false, supportedVersions: ['2026-07-28'] });
    await client.connect(clientEnd);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const listen = client.listen({ resourceSubscriptions: ['test://a'] });
      await listening;
      await server.close();
      await expect(listen).rejects.toThrow(/closed/);
      // Node reports an unhandled rejection after the microtasks of the turn it happened in.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await client.close();
    }
  });
});

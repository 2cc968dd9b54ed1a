import {
  createMemorySessionStore,
  listenStreamableHttp,
  McpServer,
  type SessionStore,
} from '@mcpkit/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectText, rawSession } from '../support/scaleout.js';

/**
 * A custom `SessionStore` written before `appendStandalone` existed (every other method,
 * not that one) still serves two replicas: GET-stream messages go over its bus to the
 * replica holding the stream. The store is the memory store's methods without
 * `appendStandalone`, the shape such a store has.
 */
const errors: Error[] = [];
const replicas: Array<{ url: URL; server: McpServer; close(): Promise<void> }> = [];

function olderStore(): SessionStore {
  const s = createMemorySessionStore();
  // Listed one by one, as a store of the older interface declares them (no appendStandalone).
  const older: SessionStore = {
    saveSession: (...a) => s.saveSession(...a),
    loadSession: (...a) => s.loadSession(...a),
    touchSession: (...a) => s.touchSession(...a),
    deleteSession: (...a) => s.deleteSession(...a),
    openStream: (...a) => s.openStream(...a),
    streamOwner: (...a) => s.streamOwner(...a),
    appendEvent: (...a) => s.appendEvent(...a),
    eventsAfter: (...a) => s.eventsAfter(...a),
    publish: (...a) => s.publish(...a),
    subscribe: (...a) => s.subscribe(...a),
    heartbeat: (...a) => s.heartbeat(...a),
    isAlive: (...a) => s.isAlive(...a),
    ping: () => s.ping(),
    close: () => s.close(),
  };
  return older;
}

beforeAll(async () => {
  const store = olderStore();
  for (const id of ['older-a', 'older-b']) {
    const server = new McpServer({
      info: { name: 'older-store-probe', version: '1.0.0' },
      onerror: (error) => errors.push(error),
    });
    server.registerTool('changes', { inputSchema: { type: 'object' } }, async () => {
      server.listChanged('tools');
      return { content: [{ type: 'text', text: `changed on ${id}` }] };
    });
    const listener = await listenStreamableHttp(server, {
      sessionStore: store,
      replicaId: id,
      responseMode: 'sse',
    });
    replicas.push({
      url: listener.url,
      server,
      close: async () => {
        await listener.close();
        await server.close();
      },
    });
  }
});

afterAll(async () => {
  for (const r of replicas) await r.close().catch(() => {});
});

describe('a session store without appendStandalone (written before it)', () => {
  it('GET-stream messages reach the GET stream held on another replica, in order, with no error', async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const headers = await rawSession(a.url);
    const get = await fetch(b.url, { headers });
    expect(get.status).toBe(200);
    const getStream = collectText(get);
    // Two calls on a, one on b: each replica's list change reaches b's GET stream.
    for (const [url, id] of [
      [a.url, 1],
      [a.url, 2],
      [b.url, 3],
    ] as const) {
      const answer = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'changes', arguments: {} },
        }),
      }).then((r) => r.text());
      expect(answer).toContain('changed on');
    }
    const changes = () =>
      [...getStream.text().matchAll(/notifications\/tools\/list_changed/g)].length;
    await expect.poll(changes, { timeout: 10_000 }).toBe(3);
    // Event ids of the GET stream go up one by one (the holder numbers them).
    const ids = [...getStream.text().matchAll(/^id: 0_(\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.slice(-3)).toEqual([ids.at(-3)!, ids.at(-3)! + 1, ids.at(-3)! + 2]);
    await getStream.cancel();
    expect(errors).toEqual([]);
  });
});

import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceServer } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * `resources/subscribe` through `@mcpkit/gateway` over HTTP (in-process, real backends) in front of the
 * @mcpkit/server conformance fixture over stdio: a subscription is forwarded to the backend
 * that owns the URI, and `notifications/resources/updated` reaches the subscribed clients only.
 */
let gateway: InProcessGateway;
const opened: McpClient[] = [];
beforeAll(async () => {
  gateway = await startInProcessHttpGateway({
    conf: { command: process.execPath, args: [conformanceServer, 'stdio'] },
  });
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
});

const WATCHED = 'test://watched-resource';

/** A legacy-era client over HTTP that counts the updates it hears, with a wait for the n-th. */
async function client(name: string) {
  const updates: string[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const c = new McpClient({
    name,
    era: 'legacy',
    eraCache: false,
    onresourceupdated: (uri) => {
      updates.push(uri);
      for (const w of waiters.filter((w) => updates.length >= w.n)) w.resolve();
    },
  });
  await c.connect(new StreamableHttpTransport({ url: gateway.url, name }));
  opened.push(c);
  const heard = (n: number) =>
    new Promise<void>((resolve) => {
      if (updates.length >= n) resolve();
      else waiters.push({ n, resolve });
    });
  return { c, updates, heard };
}

const touch = (c: McpClient) =>
  c.callTool({ name: 'conf__test_touch_watched_resource', arguments: {} });

describe('mcpkit serve: resource subscriptions', () => {
  it('a subscription to a URI no backend serves is refused with a clear error', async () => {
    const { c } = await client('lost');
    await expect(c.subscribeResource('test://nowhere')).rejects.toThrow(
      'no served resource matches "test://nowhere"',
    );
  });

  it('updates reach the subscribed client only; a second subscriber hears the next one', async () => {
    const a = await client('a');
    const b = await client('b');
    await a.c.subscribeResource(WATCHED);
    await touch(b.c);
    await a.heard(1);
    expect(a.updates).toEqual([WATCHED]);

    await b.c.subscribeResource(WATCHED);
    await touch(a.c);
    await Promise.all([a.heard(2), b.heard(1)]);
    // b's stream is ordered: an update of the first touch would have come before this one.
    expect(b.updates).toEqual([WATCHED]);

    // a leaves: b alone still hears updates (the backend keeps following for b).
    await a.c.unsubscribeResource(WATCHED);
    await touch(a.c);
    await b.heard(2);
    expect(b.updates).toEqual([WATCHED, WATCHED]);
  });
});

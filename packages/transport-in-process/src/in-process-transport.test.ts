import { ConnectionClosedError, JsonRpcPeer } from '@mcpkit/jsonrpc';
import { describe, expect, it } from 'vitest';
import { createInProcessPair } from './index.js';

async function pair() {
  const [a, b] = createInProcessPair();
  const client = new JsonRpcPeer(a, { label: 'server "test"' });
  const server = new JsonRpcPeer(b, { label: 'client' });
  await Promise.all([client.start(), server.start()]);
  return { a, b, client, server };
}

describe('in-process transport', () => {
  it('delivers asynchronously: send returns before the other end sees the message', async () => {
    const { client, server } = await pair();
    const seen: string[] = [];
    server.setNotificationHandler('x', () => {
      seen.push('received');
    });
    await client.notify('x');
    seen.push('sent');
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['sent', 'received']);
  });

  it('survives a storm of 20 000 synchronous round trips without stack growth', async () => {
    const { client, server } = await pair();
    server.setRequestHandler('echo', (p) => p);
    const n = 20_000;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) => client.request('echo', { i })),
    );
    expect(results).toHaveLength(n);
    expect(results[n - 1]).toEqual({ i: n - 1 });
  });

  it('close on one end closes both ends and rejects pending requests', async () => {
    const { a, b, client, server } = await pair();
    server.setRequestHandler('never', () => new Promise(() => {}));
    const closes: string[] = [];
    const onA = a.onclose;
    a.onclose = (c) => {
      closes.push('a');
      onA?.(c);
    };
    const onB = b.onclose;
    b.onclose = (c) => {
      closes.push('b');
      onB?.(c);
    };
    const pending = client.request('never');
    await new Promise((r) => setImmediate(r));
    await b.close();
    await expect(pending).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(closes.sort()).toEqual(['a', 'b']);
    expect(server.isClosed).toBe(true);
  });

  it('send after close rejects with ConnectionClosedError', async () => {
    const { a } = await pair();
    await a.close();
    await expect(a.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
  });

  it("copies messages so the receiver cannot mutate the sender's objects", async () => {
    const { client, server } = await pair();
    const payload = { list: [1, 2, 3] };
    server.setRequestHandler('mutate', (p: { list: number[] }) => {
      p.list.push(4);
      return { length: p.list.length };
    });
    expect(await client.request('mutate', payload)).toEqual({ length: 4 });
    expect(payload.list).toEqual([1, 2, 3]);
  });
});

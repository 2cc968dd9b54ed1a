import { fileURLToPath } from 'node:url';
import {
  ConnectionClosedError,
  type JsonRpcId,
  JsonRpcPeer,
  McpkitError,
  type Transport,
} from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { SseTransport } from '@mcpkit/transport-sse';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { WebSocketTransport } from '@mcpkit/transport-websocket';
import { describe, expect, it } from 'vitest';
import { contractServer } from '../support/contract-handlers.mjs';
import { startSseServer } from '../support/sse-server.js';
import { startStreamableHttpServer } from '../support/streamable-http-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWsServer } from '../support/ws-server.js';

/**
 * One contract, every transport. A new transport joins by adding a fixture: a function
 * that starts the server side and returns the client transport plus hooks into the server.
 */
interface ServerLog {
  cancelled: JsonRpcId[];
  notes: unknown[];
  changed?: () => void;
}

interface Fixture {
  client: Transport;
  log: ServerLog;
  /** Makes the server vanish (process exit, listener closed, socket terminated). */
  die: () => Promise<void> | void;
  /** Resolves once the server noticed the client closing. */
  closedByClient: Promise<unknown>;
  dispose: () => Promise<void>;
}

function newLog(): ServerLog & { wait: (check: () => boolean) => Promise<void> } {
  const waiters: Array<() => void> = [];
  const log: ServerLog & { wait: (check: () => boolean) => Promise<void> } = {
    cancelled: [],
    notes: [],
    changed: () => {
      for (const w of waiters.splice(0)) w();
    },
    wait: async (check) => {
      while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
  return log;
}

const stdioServer = fileURLToPath(
  new URL('../fixtures/contract-stdio-server.mjs', import.meta.url),
);

const fixtures: Record<string, () => Promise<Fixture>> = {
  'in-process': async () => {
    const [client, server] = createInProcessPair();
    const log = newLog();
    const peer = new JsonRpcPeer(server, { label: 'client' });
    contractServer(peer, log, () => void server.close());
    const closedByClient = new Promise((resolve) => {
      peer.onclose = resolve;
    });
    await peer.start();
    return { client, log, die: () => server.close(), closedByClient, dispose: async () => {} };
  },

  stdio: async () => {
    const log = newLog();
    const client = new StdioTransport({
      command: process.execPath,
      args: [stdioServer],
      name: 'contract',
      onstderr: (text) => {
        for (const line of text.split('\n')) {
          if (!line.startsWith('LOG ')) continue;
          const state = JSON.parse(line.slice(4)) as ServerLog;
          log.cancelled = state.cancelled;
          log.notes = state.notes;
          log.changed?.();
        }
      },
    });
    let exited!: () => void;
    const closedByClient = new Promise<void>((resolve) => {
      exited = resolve;
    });
    const die = async () => {
      await client.send({ jsonrpc: '2.0', id: 'die', method: 'die-now' });
    };
    return {
      client,
      log,
      die,
      closedByClient,
      dispose: async () => {
        await client.close();
        exited();
      },
    };
  },

  'streamable-http': async () => {
    const log = newLog();
    let sessionClosed!: () => void;
    const closedByClient = new Promise<void>((resolve) => {
      sessionClosed = resolve;
    });
    const server = await startStreamableHttpServer({
      anyMessageStartsSession: true,
      setup: (peer) => contractServer(peer, log, () => {}),
    });
    const client = new StreamableHttpTransport({ url: server.url, name: 'contract' });
    const originalClose = client.close.bind(client);
    return {
      client,
      log,
      die: () => server.close(),
      // Built only when a test asks: the server saw the client end its session (DELETE).
      get closedByClient() {
        return closedByClient.then(() => expect(server.deleteCount).toBe(1));
      },
      dispose: async () => {
        await originalClose();
        sessionClosed();
        await server.close().catch(() => {});
      },
    };
  },

  sse: async () => {
    const log = newLog();
    let closed: Promise<void> = new Promise(() => {});
    const server = await startSseServer((peer, session) => {
      contractServer(peer, log, () => {});
      closed = session.closed;
    });
    const client = new SseTransport({
      url: server.url,
      name: 'contract',
      reconnect: { maxAttempts: 1, initialDelayMs: 10 },
    });
    return {
      client,
      log,
      die: () => server.close(),
      get closedByClient() {
        return closed;
      },
      dispose: () => server.close().catch(() => {}),
    };
  },

  websocket: async () => {
    const log = newLog();
    let closed: Promise<void> = new Promise(() => {});
    const server = await startWsServer((peer, connection) => {
      contractServer(peer, log, () => {});
      closed = connection.closed;
    });
    const client = new WebSocketTransport({ url: server.url, name: 'contract' });
    return {
      client,
      log,
      die: () => server.kill(),
      get closedByClient() {
        return closed;
      },
      dispose: () => server.kill().catch(() => {}),
    };
  },
};

describe.each(Object.keys(fixtures))('transport contract: %s', (name) => {
  async function open() {
    const fixture = await fixtures[name]!();
    const peer = new JsonRpcPeer(fixture.client, {
      label: `${name} server`,
      defaultTimeoutMs: 30_000,
    });
    peer.setRequestHandler('client/answer', (p: { question: string }) => ({
      answer: `${p.question}!`,
    }));
    const notes: unknown[] = [];
    peer.setNotificationHandler('server/note', (p) => {
      notes.push(p);
    });
    await peer.start();
    return {
      log: fixture.log,
      die: fixture.die,
      dispose: fixture.dispose,
      // A getter, not a copy: some fixtures build this promise only on demand.
      get closedByClient() {
        return fixture.closedByClient;
      },
      peer,
      notes,
      [Symbol.asyncDispose]: async () => {
        await peer.close().catch(() => {});
        await fixture.dispose();
      },
    };
  }

  it('round trip', async () => {
    await using f = await open();
    expect(await f.peer.request('echo', { hello: 'world', n: 1 })).toEqual({
      hello: 'world',
      n: 1,
    });
  });

  it('100 concurrent requests, all answered', async () => {
    await using f = await open();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => f.peer.request('echo', { i })),
    );
    expect(results).toEqual(Array.from({ length: 100 }, (_, i) => ({ i })));
  });

  it('a server-to-client request is answered', async () => {
    await using f = await open();
    expect(await f.peer.request('ask-client', { question: 'ready' })).toEqual({
      clientSaid: { answer: 'ready!' },
    });
  });

  it('notifications both ways', async () => {
    await using f = await open();
    await f.peer.notify('client/note', { from: 'client' });
    await (f.log as ReturnType<typeof newLog>).wait(() => f.log.notes.length > 0);
    expect(f.log.notes).toEqual([{ from: 'client' }]);
    expect(await f.peer.request('notify-me', { n: 7 })).toEqual({ sent: true });
    await waitFor(() => f.notes.length > 0, 'the notification');
    expect(f.notes).toEqual([{ n: 7 }]);
  });

  it('a 10 MB message each way', async () => {
    await using f = await open();
    const text = 'z'.repeat(10 * 1024 * 1024);
    const result = (await f.peer.request('echo', { text })) as { text: string };
    expect(result.text.length).toBe(text.length);
  });

  it('the server dying mid-request: pending requests reject promptly with a typed error naming the transport', async () => {
    await using f = await open();
    const pending = f.peer.request('hang', {});
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await f.die();
    const error = await pending.catch((e: unknown) => e);
    expect(McpkitError.isInstance(error)).toBe(true);
    // Named by the peer's label, or by the transport's own description (server name and URL).
    expect((error as Error).message).toMatch(new RegExp(`^(${name} server|server "contract")`));
    // A hang guard, not a speed test: "promptly" means long before any request timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('the client closing: the server sees it, nothing is left open', async () => {
    await using f = await open();
    await f.peer.request('echo', {});
    const closedByClient = f.closedByClient;
    await f.peer.close();
    if (name === 'stdio' || name === 'streamable-http') await f.dispose();
    await closedByClient;
    await expect(f.peer.request('echo', {})).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('an aborted request: the server receives notifications/cancelled', async () => {
    await using f = await open();
    const controller = new AbortController();
    const pending = f.peer.request('hang', {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('user gave up'));
    await expect(pending).rejects.toThrow('user gave up');
    await (f.log as ReturnType<typeof newLog>).wait(() => f.log.cancelled.length > 0);
    expect(f.log.cancelled).toHaveLength(1);
  });
});

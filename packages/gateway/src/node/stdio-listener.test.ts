import { PassThrough } from 'node:stream';
import { McpServer } from '@mcpkit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { StdioListener } from './stdio-listener.js';

/**
 * The stdio face over real streams (a `StdioServerTransport` on PassThrough pipes, the
 * client's side written and read as JSON lines by the test).
 */
interface Pipe {
  face: StdioListener;
  write(message: unknown): void;
  /** The next line the face sends that matches. */
  next(match: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  rootsChanged: number;
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

async function pipe(options: { waitMs?: number; maxMessageBytes?: number } = {}): Promise<Pipe> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const seen: Array<Record<string, unknown>> = [];
  const waiters: Array<{
    match: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }> = [];
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, at)) as Record<string, unknown>;
      buffered = buffered.slice(at + 1);
      const waiter = waiters.find((w) => w.match(message));
      if (waiter) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      } else seen.push(message);
    }
  });
  const result: Pipe = {
    face: new StdioListener({
      stdin,
      stdout,
      waitMs: options.waitMs ?? 30_000,
      // The application's words (the CLI names its flag); the library adds them as given.
      tooLargeAdvice: 'raise --max-message-bytes',
      ...(options.maxMessageBytes !== undefined
        ? { maxMessageBytes: options.maxMessageBytes }
        : {}),
      onrootschanged: () => {
        result.rootsChanged++;
      },
    }),
    write: (message) => stdin.write(`${JSON.stringify(message)}\n`),
    next: (match) => {
      const early = seen.find(match);
      if (early) {
        seen.splice(seen.indexOf(early), 1);
        return Promise.resolve(early);
      }
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    rootsChanged: 0,
  };
  const server = new McpServer({ info: { name: 'face-test', version: '0' } });
  await result.face.listen(server);
  open.push(async () => {
    stdin.end();
    await server.close();
  });
  return result;
}

const initialize = (capabilities: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'c', version: '0' } },
});

const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe('StdioListener', () => {
  it('a backend request before the client initialized waits for it, then goes to the 2025 client that declared roots', async () => {
    const p = await pipe();
    const asked = p.face.ask('probe', 'roots/list', 'roots', {}, new AbortController().signal);
    p.write(initialize({ roots: {} }));
    await p.next((m) => m.id === 'init');
    // Asked only once the client says it is initialized, as the spec wants.
    p.write(initialized);
    const request = await p.next((m) => m.method === 'roots/list');
    p.write({ jsonrpc: '2.0', id: request.id, result: { roots: [{ uri: 'file:///r' }] } });
    await expect(asked).resolves.toEqual({ roots: [{ uri: 'file:///r' }] });
  });

  it('between initialize and notifications/initialized the client is not asked yet', async () => {
    const p = await pipe();
    p.write(initialize({ roots: {} }));
    await p.next((m) => m.id === 'init');
    const asked = p.face.ask('probe', 'roots/list', 'roots', {}, new AbortController().signal);
    // A ping may come before notifications/initialized: the next lines the face sends are
    // the two pings' answers, with no roots/list before or between them.
    for (const id of ['p1', 'p2']) {
      p.write({ jsonrpc: '2.0', id, method: 'ping', params: {} });
      expect(await p.next(() => true)).toMatchObject({ id, result: {} });
    }
    p.write(initialized);
    const request = await p.next((m) => m.method === 'roots/list');
    p.write({ jsonrpc: '2.0', id: request.id, result: { roots: [] } });
    await expect(asked).resolves.toEqual({ roots: [] });
  });

  it('a client that did not declare the capability: refused, naming the server and the capability', async () => {
    const p = await pipe();
    p.write(initialize({ sampling: {} }));
    await p.next((m) => m.id === 'init');
    p.write(initialized);
    await expect(
      p.face.ask('probe', 'roots/list', 'roots', {}, new AbortController().signal),
    ).rejects.toThrow(/server "probe" arrived outside any call.*did not declare the "roots"/);
  });

  it('a 2026-07-28 client (it sends no initialize): refused, saying it can be asked only within a call', async () => {
    const p = await pipe();
    p.write({
      jsonrpc: '2.0',
      id: 1,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { roots: {} },
        },
      },
    });
    await p.next((m) => m.id === 1);
    await expect(
      p.face.ask('probe', 'roots/list', 'roots', {}, new AbortController().signal),
    ).rejects.toThrow(/speaks 2026-07-28, which can be asked only within a call/);
  });

  it('no client initialized within waitMs: refused, saying so (the request never hangs)', async () => {
    const p = await pipe({ waitMs: 1 });
    await expect(
      p.face.ask('probe', 'roots/list', 'roots', {}, new AbortController().signal),
    ).rejects.toThrow(/before the gateway's client initialized, and none did within 1 ms/);
  });

  it("the backend's cancellation ends the wait with its reason", async () => {
    const p = await pipe();
    const controller = new AbortController();
    const asked = p.face.ask('probe', 'roots/list', 'roots', {}, controller.signal);
    controller.abort(new Error('backend gave up'));
    await expect(asked).rejects.toThrow('backend gave up');
  });

  it('a request line over maxMessageBytes is answered -32600 naming the flag; a notification over it is not answered; the face keeps serving', async () => {
    const p = await pipe({ maxMessageBytes: 512 });
    p.write(initialize({}));
    await p.next((m) => m.id === 'init');
    p.write({ jsonrpc: '2.0', id: 7, method: 'ping', params: { pad: 'x'.repeat(1024) } });
    const refused = await p.next((m) => m.id === 7);
    expect(refused.error).toMatchObject({ code: -32600 });
    expect(String((refused.error as { message: string }).message)).toContain('--max-message-bytes');
    p.write({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { pad: 'y'.repeat(1024) },
    });
    p.write({ jsonrpc: '2.0', id: 8, method: 'ping' });
    // The ping's answer is the next thing sent: nothing was said about the notification.
    const next = await p.next(() => true);
    expect(next).toMatchObject({ id: 8, result: {} });
  });

  it("the client's roots/list_changed is passed on", async () => {
    const p = await pipe();
    p.write(initialize({ roots: { listChanged: true } }));
    await p.next((m) => m.id === 'init');
    p.write({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    p.write({ jsonrpc: '2.0', id: 2, method: 'ping' });
    await p.next((m) => m.id === 2);
    expect(p.rootsChanged).toBe(1);
  });
});

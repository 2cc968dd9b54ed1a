import { describe, expect, it } from 'vitest';
import { CancelScope } from './cancellation.js';
import {
  ConnectionClosedError,
  ErrorCode,
  HandlerError,
  InvalidMessageError,
  McpkitError,
  MessageTooLargeError,
  ParseError,
  RpcError,
  TimeoutError,
} from './errors.js';
import { JsonRpcPeer } from './json-rpc-peer.js';
import type { JsonRpcMessage } from './messages.js';
import type { Transport } from './transport.js';

/**
 * A minimal in-memory transport pair for the peer's own tests (the real in-process
 * transport lives in a package that depends on this one). Delivery is asynchronous.
 */
class Loopback implements Transport {
  onmessage?: (m: JsonRpcMessage) => void;
  onerror?: (e: Error) => void;
  onclose?: (cause?: Error) => void;
  other!: Loopback;
  closed = false;
  readonly sent: JsonRpcMessage[] = [];
  async start() {}
  async send(message: JsonRpcMessage) {
    if (this.closed) throw new ConnectionClosedError('closed');
    this.sent.push(message);
    const copy = JSON.parse(JSON.stringify(message));
    setImmediate(() => this.other.closed || this.other.onmessage?.(copy));
  }
  async close() {
    this.shut(undefined);
    this.other.shut(new Error('other end closed'));
  }
  shut(cause?: Error) {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(cause);
  }
}

function pair() {
  const a = new Loopback();
  const b = new Loopback();
  a.other = b;
  b.other = a;
  const client = new JsonRpcPeer(a, { label: 'server "t"' });
  const server = new JsonRpcPeer(b, { label: 'client', respondToParseErrors: true });
  const serverErrors: Error[] = [];
  server.onerror = (e) => serverErrors.push(e);
  return { a, b, client, server, serverErrors };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('JsonRpcPeer', () => {
  it('correlates responses with requests, out of order', async () => {
    const { client, server } = pair();
    server.setRequestHandler('wait', async (p: { ms: number }) => {
      await new Promise((r) => setTimeout(r, p.ms));
      return { ms: p.ms };
    });
    const results = await Promise.all([30, 1, 15].map((ms) => client.request('wait', { ms })));
    expect(results).toEqual([{ ms: 30 }, { ms: 1 }, { ms: 15 }]);
    expect(client.pendingCount).toBe(0);
  });

  it('answers an unknown method with -32601', async () => {
    const { client } = pair();
    const error: any = await client.request('nope').catch((e: any) => e);
    expect(RpcError.isInstance(error)).toBe(true);
    expect(error.rpcCode).toBe(-32601);
    expect(error.message).toContain('server "t"');
    expect(error.message).toContain('"nope"');
  });

  it('a throwing handler yields -32603 with a safe message; the detail stays local', async () => {
    const { client, server, serverErrors } = pair();
    server.setRequestHandler('boom', () => {
      throw new Error('secret path /etc/passwd');
    });
    const error: any = await client.request('boom').catch((e: any) => e);
    expect(error.rpcCode).toBe(-32603);
    expect(error.rpcMessage).toBe('Internal error');
    expect(JSON.stringify(error)).not.toContain('secret');
    expect(serverErrors.some((e) => e.message.includes('secret path'))).toBe(true);
  });

  it('a failing handler of ours is a HandlerError, not a protocol error of the peer', async () => {
    const { client, server, serverErrors } = pair();
    const cause = new Error('host bug');
    server.setRequestHandler('boom', () => {
      throw cause;
    });
    server.setNotificationHandler('note', async () => {
      throw cause;
    });
    await client.request('boom').catch(() => {});
    await client.notify('note');
    await tick();
    expect(serverErrors.map((e) => [HandlerError.isInstance(e), (e as HandlerError).code])).toEqual(
      [
        [true, ErrorCode.HandlerFailed],
        [true, ErrorCode.HandlerFailed],
      ],
    );
    const [forRequest, forNotification] = serverErrors as HandlerError[];
    expect(forRequest!.where).toBe('request 1');
    expect(forNotification!.where).toBe('note');
    expect(forNotification!.cause).toBe(cause);
    expect(forNotification!.message).toBe('client: handler for note failed: host bug');
  });

  it('an RpcError thrown by a handler keeps its code and data', async () => {
    const { client, server } = pair();
    server.setRequestHandler('bad', () => {
      throw new RpcError(-32602, 'Invalid params', { field: 'x' });
    });
    const error: any = await client.request('bad').catch((e: any) => e);
    expect(error.rpcCode).toBe(-32602);
    expect(error.data).toEqual({ field: 'x' });
  });

  it('times out with a TimeoutError and tells the server with notifications/cancelled', async () => {
    const { client, server } = pair();
    let cancelledWith: unknown;
    server.setRequestHandler('hang', (_p, ctx) => {
      return new Promise((_r, reject) => {
        ctx.signal.addEventListener('abort', () => {
          cancelledWith = ctx.id;
          reject(ctx.signal.reason);
        });
      });
    });
    const error: any = await client.request('hang', {}, { timeoutMs: 30 }).catch((e: any) => e);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/server "t": request "hang" timed out after 30 ms/);
    await tick();
    expect(cancelledWith).toBe(1);
  });

  it('abort rejects with signal.reason and the server handler sees its signal abort', async () => {
    const { client, server, b } = pair();
    let aborted = false;
    server.setRequestHandler(
      'hang',
      (_p, ctx) => new Promise(() => ctx.signal.addEventListener('abort', () => (aborted = true))),
    );
    const controller = new AbortController();
    const reason = new Error('user pressed escape');
    const pending = client.request('hang', {}, { signal: controller.signal });
    await tick();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await tick();
    expect(aborted).toBe(true);
    // The cancelled request gets no response from the server.
    expect(b.sent.filter((m) => 'id' in m && m.id === 1)).toEqual([]);
  });

  it("a request sent with an incoming request's cancellation is cancelled with it (a proxy)", async () => {
    // caller → proxy (one pair), proxy → backend (another pair).
    const front = pair();
    const back = pair();
    let backendSaw: unknown;
    back.server.setRequestHandler(
      'hang',
      (_p, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            backendSaw = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        ),
    );
    let forwarded: Promise<unknown> | undefined;
    front.server.setRequestHandler('hang', (params, ctx) => {
      forwarded = back.client.request('hang', params, { cancellation: ctx.cancellation });
      return forwarded;
    });
    const controller = new AbortController();
    const call = front.client.request('hang', {}, { signal: controller.signal });
    await tick();
    expect(back.client.pendingCount).toBe(1);
    controller.abort(new Error('user pressed escape'));
    await expect(call).rejects.toThrow('user pressed escape');
    // The proxy's own request rejects with the incoming request's cancellation reason…
    const error: any = await forwarded!.catch((e: unknown) => e);
    expect(error.code).toBe('MCPKIT_ABORTED');
    expect(error.message).toContain('user pressed escape');
    expect(back.client.pendingCount).toBe(0);
    // …and the backend was told (notifications/cancelled for its request).
    await tick();
    expect((backendSaw as Error).message).toContain('user pressed escape');
  });

  it('a cancellation that already happened rejects at once and sends nothing', async () => {
    const { client, a } = pair();
    const scope = new CancelScope();
    scope.abort(new Error('gone'));
    await expect(client.request('x', {}, { cancellation: scope })).rejects.toThrow('gone');
    expect(a.sent).toEqual([]);
  });

  it('a handler that never reads its signal still learns of a cancellation; reading it later gives an aborted signal', async () => {
    const { client, server } = pair();
    let context: any;
    let release!: () => void;
    server.setRequestHandler('hang', (_p, ctx) => {
      context = ctx;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const controller = new AbortController();
    const call = client.request('hang', {}, { signal: controller.signal });
    await tick();
    expect(context.cancellation.aborted).toBe(false);
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    await tick();
    expect(context.cancellation.aborted).toBe(true);
    expect(context.signal.aborted).toBe(true);
    expect(context.signal.reason).toBe(context.cancellation.reason);
    expect(String(context.signal.reason.message)).toContain('stop');
    release();
  });

  it('a dropped oversized request is answered -32600 and leaves our own request with the same id alone', async () => {
    const { client, server, b } = pair();
    client.setRequestHandler('slow', () => new Promise(() => {}));
    // The server has a request of its own pending with id 1 (its first id).
    server.request('slow', {}).catch(() => {});
    await tick();
    b.onerror?.(
      new MessageTooLargeError('a 9000-byte message exceeds the 100-byte limit', 100, {
        id: 1,
        kind: 'request',
      }),
    );
    const sent = b.sent.filter((m) => 'error' in m);
    expect(sent).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32600,
          message: 'Request dropped: it is over the 100-byte message limit',
        },
      },
    ]);
    expect(server.pendingCount).toBe(1);
  });

  it('a dropped oversized response fails the request it answers', async () => {
    const { client, a } = pair();
    client.setRequestHandler('never', () => new Promise(() => {}));
    const pending = client.request('never-answered-here', {});
    a.onerror?.(
      new MessageTooLargeError('a 9000-byte message exceeds the 100-byte limit', 100, {
        id: 1,
        kind: 'response',
      }),
    );
    const error: any = await pending.catch((e: unknown) => e);
    expect(error.code).toBe('MCPKIT_MESSAGE_TOO_LARGE');
    expect(error.message).toContain('response to "never-answered-here" dropped');
  });

  it('a late answer to a request that timed out is ignored, not reported; one to an id never used still is', async () => {
    const { client, server, b } = pair();
    server.setRequestHandler('hang', () => new Promise(() => {}));
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    await expect(client.request('hang', {}, { timeoutMs: 20 })).rejects.toBeInstanceOf(
      TimeoutError,
    );
    // A server that ignores notifications/cancelled answers anyway.
    await b.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    expect(errors).toEqual([]);
    await b.send({ jsonrpc: '2.0', id: 99, result: {} });
    await tick();
    expect(errors.map((e) => e.message)).toEqual([
      'server "t": response to unknown request id 99 ignored',
    ]);
  });

  it('an already-aborted signal rejects without sending', async () => {
    const { client, a } = pair();
    const controller = new AbortController();
    controller.abort(new Error('early'));
    await expect(client.request('x', {}, { signal: controller.signal })).rejects.toThrow('early');
    expect(a.sent).toEqual([]);
  });

  it('routes progress to onprogress and resets the timeout on progress', async () => {
    const { client, server } = pair();
    server.setRequestHandler('slow', async (_p, ctx) => {
      for (let i = 1; i <= 4; i++) {
        await new Promise((r) => setTimeout(r, 25));
        await ctx.progress({ progress: i, total: 4, message: `step ${i}` });
      }
      return { done: true };
    });
    const seen: number[] = [];
    const result = await client.request(
      'slow',
      {},
      { timeoutMs: 60, resetTimeoutOnProgress: true, onprogress: (p) => seen.push(p.progress) },
    );
    expect(result).toEqual({ done: true });
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('maxTotalTimeoutMs bounds a request that keeps reporting progress', async () => {
    const { client, server } = pair();
    server.setRequestHandler('forever', async (_p, ctx) => {
      while (!ctx.signal.aborted) {
        await new Promise((r) => setTimeout(r, 10));
        await ctx.progress({ progress: 1 }).catch(() => {});
      }
      return {};
    });
    const start = Date.now();
    const error: any = await client
      .request(
        'forever',
        {},
        {
          timeoutMs: 50,
          resetTimeoutOnProgress: true,
          maxTotalTimeoutMs: 120,
          onprogress: () => {},
        },
      )
      .catch((e: any) => e);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain('maximum total time');
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('requests with different timeouts share one timer and each expires on time', async () => {
    const { client, server } = pair();
    server.setRequestHandler('hang', () => new Promise(() => {}));
    const slow = client.request('hang', {}, { timeoutMs: 5_000 }).catch((e: any) => e);
    const started = Date.now();
    const fast: any = await client.request('hang', {}, { timeoutMs: 40 }).catch((e: any) => e);
    expect(TimeoutError.isInstance(fast)).toBe(true);
    expect(fast.timeoutMs).toBe(40);
    // The slower request is still pending, untouched by the faster one's expiry.
    expect(client.pendingCount).toBe(1);
    expect(Date.now() - started).toBeLessThan(4_000);
    await client.close();
    expect(ConnectionClosedError.isInstance(await slow)).toBe(true);
  });

  it('on close every pending request rejects at once with the cause attached', async () => {
    const { client, server, b } = pair();
    server.setRequestHandler('hang', () => new Promise(() => {}));
    const pending = [client.request('hang'), client.request('hang'), client.request('hang')];
    await tick();
    await b.close();
    const errors: any[] = await Promise.all(pending.map((p) => p.catch((e: any) => e)));
    for (const e of errors) {
      expect(ConnectionClosedError.isInstance(e)).toBe(true);
      expect(e.cause).toBeInstanceOf(Error);
      expect(e.message).toContain('other end closed');
    }
    await expect(client.request('later')).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('answers an invalid message that has an id with -32600, and garbage with -32700', async () => {
    const { b, a, serverErrors } = pair();
    const received: JsonRpcMessage[] = [];
    a.onmessage = (m) => received.push(m);
    b.onerror?.(new InvalidMessageError('bad', 7));
    b.onerror?.(new ParseError('not json', 'xx'));
    await tick();
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request' } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]);
    expect(serverErrors).toHaveLength(2);
  });

  it('an invalid response to a pending request rejects that request', async () => {
    const { client, a } = pair();
    const pending = client.request('x');
    a.onerror?.(
      new InvalidMessageError(
        'invalid JSON-RPC message: a response has exactly one of "result" and "error"',
        1,
      ),
    );
    const error: any = await pending.catch((e: any) => e);
    expect(McpkitError.isInstance(error)).toBe(true);
    expect(error.message).toContain('invalid response to "x"');
  });

  it('dispatches notifications and reports unknown response ids', async () => {
    const { client, server } = pair();
    const got: unknown[] = [];
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    server.setNotificationHandler('hello', (p) => {
      got.push(p);
    });
    await client.notify('hello', { a: 1 });
    await tick();
    expect(got).toEqual([{ a: 1 }]);
    client.transport.onmessage?.({ jsonrpc: '2.0', id: 999, result: {} });
    expect(errors[0]?.message).toContain('unknown request id 999');
  });
});

import { JsonRpcPeer, TimeoutError } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { McpClient } from './index.js';

/** A server that reads every request and answers none (a hung process, say). */
async function silentServer() {
  const [clientEnd, serverEnd] = createInProcessPair();
  const seen: Array<{ method: string; at: number }> = [];
  const server = new JsonRpcPeer(serverEnd);
  const never = (method: string) => () => {
    seen.push({ method, at: performance.now() });
    return new Promise<never>(() => {});
  };
  server.setRequestHandler('server/discover', never('server/discover'));
  server.setRequestHandler('initialize', never('initialize'));
  await server.start();
  return { clientEnd, server, seen };
}

describe('one connect budget', () => {
  it('a silent server: the probe and initialize together stay within the connect timeout, and the error states that budget', async () => {
    const { clientEnd, server, seen } = await silentServer();
    const client = new McpClient({ name: 'silent' });
    const error = await client.connect(clientEnd, { timeoutMs: 1500 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await server.close();
    expect(TimeoutError.isInstance(error)).toBe(true);
    const timeout = error as TimeoutError;
    expect(timeout.timeoutMs).toBe(1500);
    expect(timeout.message).toContain('server "silent"');
    expect(timeout.message).toContain('1500 ms connect budget');
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'initialize']);
    // The probe keeps its own, shorter limit: at most half of the budget, so that
    // initialize still had time. Before, each step was given the whole 1500 ms.
    const probe = Number(/"server\/discover" unanswered for (\d+) ms/.exec(timeout.message)?.[1]);
    expect(probe).toBeGreaterThan(0);
    expect(probe).toBeLessThanOrEqual(750);
    const initializeLimit = (timeout.cause as TimeoutError).timeoutMs;
    expect(probe + initializeLimit).toBeLessThanOrEqual(1500 + 1);
  });

  it('a pinned modern era gives the probe the whole budget and names it when it runs out', async () => {
    const { clientEnd, server } = await silentServer();
    const client = new McpClient({ name: 'pinned', era: 'modern' });
    const error = await client.connect(clientEnd, { timeoutMs: 300 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await server.close();
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as TimeoutError).timeoutMs).toBe(300);
    expect((error as Error).message).toContain('waiting for "server/discover"');
  });

  it('the probe never takes longer than discoverTimeoutMs, whatever the budget', async () => {
    const { clientEnd, server, seen } = await silentServer();
    const client = new McpClient({ name: 'short-probe', discoverTimeoutMs: 100 });
    const error = await client.connect(clientEnd, { timeoutMs: 800 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await server.close();
    expect((error as Error).message).toContain('"server/discover" unanswered for 100 ms');
    expect(seen.map((s) => s.method)).toEqual(['server/discover', 'initialize']);
  });
});

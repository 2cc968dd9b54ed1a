import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { expect, test } from 'vitest';
import type { Clock } from './clock.js';
import { McpManager } from './mcp-manager.js';
import type { ServerState } from './state.js';

/** A fake clock: timers run only when the test advances time. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let now = 1_000_000;
  let nextId = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => now,
    random: () => 0.5, // no jitter
    setTimeout: (run, ms) => {
      timers.set(nextId, { at: now + ms, run });
      return nextId++;
    },
    clearTimeout: (id) => {
      timers.delete(id as number);
    },
    advance(ms) {
      now += ms;
      for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at > now) continue;
        timers.delete(id);
        t.run();
      }
    },
  };
}

/** A small in-process server that answers the handshake and lists no tools. */
function liveServer() {
  const [client, server] = createInProcessPair();
  const peer = new JsonRpcPeer(server, { label: 'in-process test server' });
  peer.setRequestHandler('initialize', (params: { protocolVersion: string }) => ({
    protocolVersion: params.protocolVersion,
    capabilities: {},
    serverInfo: { name: 'in-process', version: '1.0.0' },
  }));
  void peer.start();
  return { client, close: () => peer.close() };
}

test('a dropped server is never given up: 5 fast attempts (1 s … 16 s), then a slow phase from 60 s to 300 s (fake clock; also the regression where a retry timer firing before the last attempt settled was lost)', async () => {
  const clock = fakeClock();
  const live = liveServer();
  let starts = 0;
  const states: ServerState[] = [];
  const manager = new McpManager({
    clock,
    servers: [
      {
        name: 'remote-ish',
        scope: 'user',
        source: 'test',
        config: { type: 'sdk', name: 'remote-ish' },
        status: 'enabled',
        reason: '',
        policy: { allowed: true } as never,
        missingVariables: [],
      },
    ],
    inProcess: {
      'remote-ish': () => {
        if (starts++ === 0) return live.client;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
          code: 'ECONNREFUSED',
        });
      },
    },
  });
  manager.on('statechange', (e) => states.push(e.state));
  const attempt = (n: number) =>
    new Promise<ServerState>((resolve) => {
      const off = manager.on('statechange', (e) => {
        if (e.state.state === 'pending' && e.state.reconnectAttempt === n) {
          off();
          resolve(e.state);
        }
      });
    });
  try {
    await manager.connectAll();
    expect(manager.state('remote-ish')?.state).toBe('connected');
    const first = attempt(1);
    await live.close();
    const delays: number[] = [];
    let state = await first;
    for (let n = 1; n <= 10; n++) {
      if (state.state !== 'pending') throw new Error(`unexpected ${state.state}`);
      const delay = state.nextRetryAt! - clock.now();
      delays.push(delay);
      const next = attempt(n + 1);
      clock.advance(delay);
      state = await next;
    }
    expect(delays).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 60_000, 120_000, 240_000, 300_000, 300_000,
    ]);
    expect(state.state === 'pending' && state.maxReconnectAttempts).toBe(5);
    expect(states.some((s) => s.state === 'failed')).toBe(false);
    expect(starts).toBe(11);
  } finally {
    await manager.close();
  }
});

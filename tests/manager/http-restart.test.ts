import { createServer as createHttpServer } from 'node:http';
import { type ManagerEvents, McpManager, type ServerState } from '@mcpkit/manager';
import { expect, test } from 'vitest';
import { nextEvent, resolved } from './helpers.js';
import { freePort, startSdkServer as startServer, stopServer as stop } from './sdk-v1-http.js';

test('SDK v1 Streamable HTTP server killed and restarted on the same port: back to connected with fresh tools, calls succeed, no false error after', async () => {
  const port = await freePort();
  let child = await startServer(port, 1);
  const manager = new McpManager({
    servers: [resolved('sdk', { type: 'http', url: `http://127.0.0.1:${port}/mcp` })],
  });
  const transitions: string[] = [];
  manager.on('statechange', (e) => transitions.push(e.state.state));
  try {
    await manager.connectAll();
    expect(manager.state('sdk')?.state).toBe('connected');
    expect((await manager.tools()).map((t) => t.tool)).toEqual(['gen_1', 'whoami']);
    const first = JSON.parse((await manager.callTool('sdk', 'whoami', {})).text);
    expect(first.generation).toBe('1');

    const dropped = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'pending',
    );
    await stop(child);
    await dropped;

    const back = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'connected',
    );
    const fresh = nextEvent<ManagerEvents['toolschange']>(
      (l) => manager.on('toolschange', l),
      (e) => e.added.some((t) => t.tool === 'gen_2'),
    );
    child = await startServer(port, 2);
    const reachableAt = performance.now();
    await back;
    await fresh;
    console.log(
      `restarted HTTP server back to connected with fresh tools within ${Math.round(performance.now() - reachableAt)} ms of being reachable`,
    );
    const after = transitions.length;
    expect((await manager.tools()).map((t) => t.tool)).toEqual(['gen_2', 'whoami']);
    for (let i = 0; i < 3; i++) {
      const who = JSON.parse((await manager.callTool('sdk', 'whoami', {})).text);
      expect(who.generation).toBe('2');
    }
    expect(manager.state('sdk')?.state).toBe('connected');
    expect(transitions.slice(after)).toEqual([]);
  } finally {
    await manager.close();
    await stop(child, 'SIGTERM');
  }
});

test('a port that accepts TCP but fails MCP (HTTP 500) is retried at the backoff pace, not by the reachability check', async () => {
  const port = await freePort();
  const child = await startServer(port, 1);
  const manager = new McpManager({
    servers: [resolved('sdk', { type: 'http', url: `http://127.0.0.1:${port}/mcp` })],
    reconnect: { jitter: 0 },
  });
  const hits: number[] = [];
  const broken = createHttpServer((req, res) => {
    hits.push(performance.now());
    req.resume();
    res.writeHead(500, { 'content-type': 'text/plain' }).end('broken on purpose');
  });
  try {
    await manager.connectAll();
    const dropped = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'pending',
    );
    await stop(child);
    await dropped;
    await new Promise<void>((r) => broken.listen(port, '127.0.0.1', r));
    // The check sees the port open and starts one attempt; it fails with 500, which does
    // not re-arm the check, so the attempt after it waits for its backoff slot.
    const failedOnce = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'pending' && /500/.test(e.state.reason ?? ''),
    );
    const first = (await failedOnce).state;
    const hitsAfterFirst = hits.length;
    expect(hitsAfterFirst).toBeGreaterThan(0);
    if (first.state !== 'pending') throw new Error('unreachable');
    const delayMs = first.nextRetryAt! - Date.now();
    const nextAttempt = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'pending' && e.state.reconnectAttempt === first.reconnectAttempt + 1,
    );
    await nextAttempt;
    // No request reached the port between the failed attempt and its backoff slot.
    const gap = hits[hitsAfterFirst]! - hits[hitsAfterFirst - 1]!;
    expect(gap).toBeGreaterThanOrEqual(delayMs - 50);
  } finally {
    await manager.close();
    await new Promise((r) => broken.close(r));
    await stop(child, 'SIGTERM');
  }
});

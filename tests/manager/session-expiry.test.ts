import { type ManagerEvents, McpManager } from '@mcpkit/manager';
import { expect, test } from 'vitest';
import { nextEvent, resolved } from './helpers.js';
import { freePort, startSdkServer, stopServer, TcpRelay } from './sdk-v1-http.js';

test('an SDK v1 HTTP server killed and back at once: the 404 to the standalone GET renews the session and re-fetches the lists, with no call made', async () => {
  let child = await startSdkServer(await freePort(), 1);
  const firstPort = Number(child.spawnargs.at(-2));
  // The relay makes the restart instant for the client: connections made while the new
  // process starts wait for it instead of being refused.
  const relay = await TcpRelay.start(firstPort);
  const manager = new McpManager({
    servers: [resolved('sdk', { type: 'http', url: `http://127.0.0.1:${relay.port}/mcp` })],
  });
  const states: string[] = [];
  try {
    await manager.connectAll();
    const before = manager.state('sdk');
    if (before?.state !== 'connected') throw new Error(`not connected: ${before?.state}`);
    const oldSession = before.client.sessionId;
    expect(oldSession).toBeTruthy();
    expect(JSON.parse((await manager.callTool('sdk', 'whoami', {})).text).sessionId).toBe(
      oldSession,
    );
    manager.on('statechange', (e) => states.push(`${e.state.state} (${e.reason})`));

    // The new server's tools reach the host without any call: the standalone GET's 404 for
    // the old session is what tells the manager.
    const fresh = nextEvent<ManagerEvents['toolschange']>(
      (l) => manager.on('toolschange', l),
      (e) => e.added.some((t) => t.tool === 'gen_2') && e.removed.some((t) => t.tool === 'gen_1'),
    );
    relay.target(undefined);
    await stopServer(child);
    child = await startSdkServer(await freePort(), 2);
    relay.target(Number(child.spawnargs.at(-2)));
    await fresh;

    const after = manager.state('sdk');
    if (after?.state !== 'connected') throw new Error(`not connected: ${after?.state}`);
    const newSession = after.client.sessionId;
    expect(newSession).toBeTruthy();
    expect(newSession).not.toBe(oldSession);
    // The state told the truth all along: connected, then connected under the new session.
    expect(states).toEqual(['connected (session renewed)']);
    expect((await manager.tools()).map((t) => t.tool)).toEqual(['gen_2', 'whoami']);
    const who = JSON.parse((await manager.callTool('sdk', 'whoami', {})).text);
    expect(who).toMatchObject({ generation: '2', sessionId: newSession });
    expect(manager.state('sdk')?.state).toBe('connected');
  } finally {
    await manager.close();
    await stopServer(child, 'SIGTERM');
    await relay.close();
  }
});

import { type HostTool, McpManager, type ServerState, UnknownToolError } from '@mcpkit/manager';
import type { Tool } from '@mcpkit/protocol';
import { expect, test } from 'vitest';
import { nextEvent, resolved } from './helpers.js';
import { freePort, startSdkServer, stopServer } from './sdk-v1-http.js';

test('a server replaced on the same port by one with other tools: reads made the moment the state turns connected get the new list, never the old one', async () => {
  const port = await freePort();
  let child = await startSdkServer(port, 1);
  const manager = new McpManager({
    servers: [resolved('x', { type: 'http', url: `http://127.0.0.1:${port}/mcp` })],
  });
  try {
    await manager.connectAll();
    expect((await manager.tools()).map((t) => t.name)).toEqual(['mcp__x__gen_1', 'mcp__x__whoami']);

    const dropped = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'pending',
    );
    await stopServer(child);
    await dropped;

    // Read in the listener itself: that is the earliest a host can ask.
    const reads = new Promise<{ hostTools: HostTool[]; serverTools: Tool[] }>((resolve, reject) => {
      const off = manager.on('statechange', (e) => {
        if (e.state.state !== 'connected') return;
        off();
        Promise.all([manager.tools(), manager.serverTools('x')]).then(
          ([hostTools, serverTools]) => resolve({ hostTools, serverTools }),
          reject,
        );
      });
    });
    child = await startSdkServer(port, 2);
    const { hostTools, serverTools } = await reads;
    expect(hostTools.map((t) => t.name)).toEqual(['mcp__x__gen_2', 'mcp__x__whoami']);
    expect(serverTools.map((t) => t.name).sort()).toEqual(['gen_2', 'whoami']);
    // The names a host resolves are those of the new server: the old tool is not sent.
    await expect(manager.callHostTool('mcp__x__gen_1', {})).rejects.toBeInstanceOf(
      UnknownToolError,
    );
    expect((await manager.callHostTool('mcp__x__gen_2', {})).text).toBe('2');
  } finally {
    await manager.close();
    await stopServer(child, 'SIGTERM');
  }
});

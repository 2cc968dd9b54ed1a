// Connect-all with McpManager.connectAll, local pool at the given concurrency.
import { McpManager } from '@mcpkit/manager';
import { resolvedServers } from './manager-servers.mjs';

export async function connectAll({ command, args, count, concurrency }) {
  const manager = new McpManager({
    servers: resolvedServers({ command, args, count }),
    clientInfo: { name: 'bench-manager', version: '1.0.0' },
    limits: { localConcurrency: concurrency },
  });
  const snapshot = await manager.connectAll();
  const failed = snapshot.servers.filter((s) => s.state !== 'connected');
  if (failed.length > 0)
    throw new Error(
      `not connected: ${failed.map((s) => `${s.name} ${s.state} ${s.error?.message ?? ''}`).join('; ')}`,
    );
  return {
    connected: snapshot.servers.length,
    close: () => manager.close(),
  };
}

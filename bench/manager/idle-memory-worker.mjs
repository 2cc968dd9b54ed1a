// Memory of an idle connection in the client process: one connection first (so code and
// lazily loaded modules are not counted), then `count` more; the growth of V8 heap plus
// external memory after GC, divided by `count`. RSS is left out: on this VM it moves by
// more than the figure (it even shrinks after GC). Needs --expose-gc. Prints one JSON line.
// Usage: node --expose-gc idle-memory-worker.mjs <manager|mcpkit|sdk-v1> <count>
import { setTimeout as sleep } from 'node:timers/promises';
import { echoServer } from './servers.mjs';

const [impl, countArg] = process.argv.slice(2);
const count = Number(countArg);
const command = process.execPath;
const args = [echoServer];

async function open(n) {
  if (impl === 'manager') {
    const { McpManager } = await import('@mcpkit/manager');
    const { resolvedServers } = await import('./manager-servers.mjs');
    const manager = new McpManager({
      servers: resolvedServers({ command, args, count: n }),
      limits: { localConcurrency: 3 },
    });
    const snapshot = await manager.connectAll();
    if (snapshot.servers.some((s) => s.state !== 'connected')) throw new Error('not connected');
    // An idle host has asked for the tools once.
    await manager.tools();
    return () => manager.close();
  }
  if (impl === 'mcpkit') {
    const { McpClient } = await import('@mcpkit/client');
    const { StdioTransport } = await import('@mcpkit/transport-stdio');
    const clients = [];
    for (let i = 0; i < n; i++) {
      const client = new McpClient({ name: `echo-${i}` });
      await client.connect(new StdioTransport({ command, args, name: `echo-${i}` }));
      await client.listTools();
      clients.push(client);
    }
    return () => Promise.all(clients.map((c) => c.close()));
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const clients = [];
  for (let i = 0; i < n; i++) {
    const client = new Client({ name: 'bench', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command, args }));
    await client.listTools();
    clients.push(client);
  }
  return () => Promise.all(clients.map((c) => c.close()));
}

async function settledMemory() {
  // Let pending callbacks run, then collect twice (weak references need a second pass).
  await sleep(50);
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

// Warm-up: `count` connections opened and closed first, so that the code V8 compiles while
// connecting (feedback vectors, baseline code: two thirds of the manager's old figure,
// measured in heap snapshots) is not counted as memory an idle connection holds. It is the
// process's, bounded, and does not grow with the connections. MCPKIT_BENCH_NO_WARMUP=1
// measures the old way.
if (process.env.MCPKIT_BENCH_NO_WARMUP !== '1') await (await open(count))();
const closeFirst = await open(1);
const before = await settledMemory();
const closeAll = await open(count);
const after = await settledMemory();
await closeAll();
await closeFirst();
process.stdout.write(
  `${JSON.stringify({
    heapKb: (after - before) / count / 1024,
  })}\n`,
);
process.exit(0);

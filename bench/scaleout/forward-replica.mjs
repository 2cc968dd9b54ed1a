// One gateway replica for the forwarded-call row of issue #25, in a process of its own (so
// that its CPU is measured apart from the driver's): a manager of the bench's NDJSON echo
// backend, `createGateway` and `listenHttp`, wired as `mcpkit serve --http 127.0.0.1:0
// --no-prefix` wires them, with a shared session store, a replica id and every answer an
// event stream (what serve sets with `--redis`). The store is this process's
// `createMemorySessionStore()` or a `RedisSessionStore` on the given unix socket.
// Usage: node forward-replica.mjs <memory | redis:<socket path>> [store options, JSON];
// prints `listening on <url>`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway, createMemorySessionStore, gatewayHandlers } from '@mcpkit/gateway';
import { listenHttp } from '@mcpkit/gateway/node';
import { RedisSessionStore } from '@mcpkit/gateway-redis';
import { McpManager } from '@mcpkit/manager';

const [which = 'memory', storeOptions = '{}'] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-bench-forward-'));
const store = which.startsWith('redis:')
  ? new RedisSessionStore({
      url: `unix://${which.slice('redis:'.length)}`,
      ...JSON.parse(storeOptions),
    })
  : createMemorySessionStore();
const servers = [
  {
    name: 'echo',
    scope: 'user',
    source: 'bench',
    config: { command: process.execPath, args: [path.join(here, '../servers/echo-server.mjs')] },
    status: 'enabled',
    reason: 'bench entry',
    policy: { allowed: true },
  },
];
let gateway;
const manager = new McpManager({
  servers,
  clientInfo: { name: 'mcpkit-serve', version: '0.0.0' },
  handlers: gatewayHandlers(() => gateway),
  env: { PATH: process.env.PATH ?? '', HOME: home },
  home,
});
gateway = createGateway({
  manager,
  servers: ['echo'],
  info: { name: 'mcpkit-serve', version: '0.0.0' },
  naming: { prefix: false },
  callTimeoutMs: 30_000,
});
await manager.connectAll();
await gateway.start();
const listener = await listenHttp(gateway, {
  host: '127.0.0.1',
  port: 0,
  auth: 'none',
  // Many clients from one address: the per-address caps do not apply to a bench.
  maxConnectionsPerAddress: 10_000,
  limits: {
    maxSessionsPerClient: 10_000,
    sessionStore: store,
    replicaId: `bench-${which.split(':')[0]}`,
    responseMode: 'sse',
  },
});
process.stdout.write(`listening on ${listener.url.href}\n`);
process.once('SIGTERM', async () => {
  await listener.close().catch(() => {});
  await gateway.close().catch(() => {});
  await manager.close();
  await store.close();
  rmSync(home, { recursive: true, force: true });
  process.exit(0);
});

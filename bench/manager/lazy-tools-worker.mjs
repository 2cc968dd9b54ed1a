// Lazy start with a warm on-disk tool cache: a first manager connects `count` stdio servers
// and fills the cache (cold); a second one, as a host's next session would, answers
// connectAll() + tools() from it. Spawns are counted by the servers themselves (one line
// per process start in a log file), so nothing is missed between two looks at /proc.
// Prints one JSON line. Usage: node lazy-tools-worker.mjs <count>
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpManager } from '@mcpkit/manager';
import { resolvedServers } from './manager-servers.mjs';
import { countingEchoServer } from './servers.mjs';

const count = Number(process.argv[2]);
const dir = await mkdtemp(path.join(tmpdir(), 'mcpkit-bench-lazy-'));
const cacheDir = path.join(dir, 'cache');
const spawnLog = path.join(dir, 'spawns.log');
const spawned = async () =>
  (await readFile(spawnLog, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
const servers = resolvedServers({
  command: process.execPath,
  args: [countingEchoServer],
  count,
  env: { BENCH_SPAWN_LOG: spawnLog },
});
const open = () =>
  new McpManager({ servers, lazyStart: { cacheDir }, limits: { localConcurrency: 3 } });

try {
  // Cold: every server starts, its tool list is written to the cache.
  const cold = open();
  let t = performance.now();
  await cold.connectAll();
  const coldTools = await cold.tools();
  const coldMs = performance.now() - t;
  await cold.close();
  const coldSpawned = await spawned();
  if (coldTools.length !== count) throw new Error(`cold: ${coldTools.length} tools`);

  // Warm: a new manager, the same cache.
  await writeFile(spawnLog, '');
  const warm = open();
  t = performance.now();
  await warm.connectAll();
  const connectMs = performance.now() - t;
  t = performance.now();
  const tools = await warm.tools();
  const toolsMs = performance.now() - t;
  const afterTools = await spawned();
  // The first call starts its server, and only that one.
  const answer = await tools[0].call({ text: 'lazy' });
  if (answer.text !== 'lazy') throw new Error(`first call answered ${answer.text}`);
  const spawnedByCall = (await spawned()) - afterTools;
  await warm.close();
  process.stdout.write(
    `${JSON.stringify({ coldMs, coldSpawned, connectMs, toolsMs, tools: tools.length, spawned: afterTools, spawnedByCall })}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(0);

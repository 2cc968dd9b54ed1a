import { CrashLoopError, McpManager, type ServerState } from '@mcpkit/manager';
import { expect, test } from 'vitest';
import { fault, nextEvent, startedPids, tempDir } from './helpers.js';

test('crash loop: a stdio server that dies right after starting is spawned 5 times, then held failed until reconnect()', async () => {
  using tmp = tempDir();
  const log = tmp.file('starts.log');
  await using manager = new McpManager({
    servers: [fault('looping', 'crash-after', log)],
    // Short delays so the loop runs quickly; the breaker keeps its real policy (5 early exits a minute).
    reconnect: { initialDelayMs: 20, maxDelayMs: 40, jitter: 0 },
  });
  const held = nextEvent<{ state: ServerState }>(
    (l) => manager.on('statechange', l),
    (e) => e.state.state === 'failed',
  );
  await manager.connectAll();
  const state = (await held).state;
  if (state.state !== 'failed') throw new Error('unreachable');
  expect(state.error).toBeInstanceOf(CrashLoopError);
  expect(state.exitCode).toBe(5);
  expect(state.error.message).toMatch(
    /^server "looping": crashed 5 times .*then call reconnect\("looping"\)/s,
  );
  expect(startedPids(log)).toHaveLength(5);
  // Held: no timer is left to start it again, and calls say why.
  expect(manager.state('looping')?.state).toBe('failed');
  await expect(manager.callTool('looping', 'echo', {})).rejects.toThrow(/crashed 5 times/);
  expect(startedPids(log)).toHaveLength(5);
  // reconnect() lifts the hold: one more start.
  await manager.reconnect('looping');
  expect(startedPids(log).length).toBeGreaterThanOrEqual(6);
});

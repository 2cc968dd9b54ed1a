import { type ManagerEvents, McpManager } from '@mcpkit/manager';
import { expect, test } from 'vitest';
import { fault, nextEvent, startedPids, tempDir } from './helpers.js';

test('a stdio server killed and restarted with the same tools announces no tool change (hosts see its list once)', async () => {
  using tmp = tempDir();
  const log = tmp.file('starts.log');
  await using manager = new McpManager({
    servers: [fault('steady', 'ok', log)],
    reconnect: { initialDelayMs: 20, maxDelayMs: 40, jitter: 0 },
  });
  const changes: string[] = [];
  manager.on('toolschange', (e) =>
    changes.push(`+${e.added.length} -${e.removed.length} ~${e.changed.length}`),
  );
  const states: string[] = [];
  manager.on('statechange', (e) => states.push(e.state.state));
  const first = nextEvent<ManagerEvents['toolschange']>(
    (l) => manager.on('toolschange', l),
    (e) => e.added.length > 0,
  );
  await manager.connectAll();
  await first;
  const before = (await manager.tools()).map((t) => t.name);
  expect(before.length).toBeGreaterThan(0);
  const [pid] = startedPids(log);
  const back = nextEvent<ManagerEvents['statechange']>(
    (l) => manager.on('statechange', l),
    (e) => e.state.state === 'connected',
  );
  process.kill(pid!, 'SIGKILL');
  await back;
  // The refetch after the reconnect has finished once a call goes through and the lists are back.
  await manager.callTool('steady', 'echo', { text: 'x' });
  expect((await manager.tools()).map((t) => t.name)).toEqual(before);
  expect(states).toContain('pending');
  expect(changes).toEqual([`+${before.length} -0 ~0`]);
});

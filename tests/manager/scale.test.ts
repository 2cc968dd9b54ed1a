import { McpManager } from '@mcpkit/manager';
import { expect, test } from 'vitest';
import { processTable } from '../support/process-table.js';
import { fault, startedPids, tempDir } from './helpers.js';

test('30 stdio servers: the process table never shows more than 3 starting at once', async () => {
  using tmp = tempDir();
  const logs = Array.from({ length: 30 }, (_, i) => tmp.file(`s${i}.log`));
  const servers = logs.map((log, i) => fault(`s${String(i).padStart(2, '0')}`, 'ok', log));
  await using manager = new McpManager({ servers, env: {} });
  let maxStarting = 0;
  let samples = 0;
  const sample = () => {
    const alive = processTable().filter((p) => p.cmdline.includes(tmp.dir)).length;
    const connected = manager.snapshot().servers.filter((s) => s.state === 'connected').length;
    maxStarting = Math.max(maxStarting, alive - connected);
    samples++;
  };
  const off = manager.on('statechange', sample);
  const timer = setInterval(sample, 20);
  await manager.connectAll();
  clearInterval(timer);
  off();
  sample();
  console.log(
    `30 stdio servers: ${samples} process-table samples, at most ${maxStarting} starting at once`,
  );
  expect(manager.snapshot().servers.every((s) => s.state === 'connected')).toBe(true);
  expect(maxStarting).toBeLessThanOrEqual(3);
  expect(maxStarting).toBeGreaterThanOrEqual(1);
  expect((await manager.tools()).length).toBe(90);
});

test('reload: editing 1 of 30 servers restarts exactly 1 connection', async () => {
  using tmp = tempDir();
  const logs = Array.from({ length: 30 }, (_, i) => tmp.file(`s${i}.log`));
  const servers = logs.map((log, i) => fault(`s${String(i).padStart(2, '0')}`, 'ok', log));
  await using manager = new McpManager({ servers, limits: { localConcurrency: 6 } });
  await manager.connectAll();
  const clientsBefore = new Map(
    manager.snapshot().servers.map((s) => [s.name, s.state === 'connected' ? s.client : undefined]),
  );
  const edited = servers.map((s) =>
    s.name === 's07'
      ? { ...s, config: { ...s.config, env: { EDITED: '1' } } }
      : { ...s, config: { ...s.config } },
  );
  const result = await manager.reload(edited);
  expect(result.changed).toEqual(['s07']);
  expect(result.unchanged).toHaveLength(29);
  expect(result.added).toEqual([]);
  expect(result.removed).toEqual([]);
  expect(logs.map((l) => startedPids(l).length)).toEqual(logs.map((_, i) => (i === 7 ? 2 : 1)));
  for (const s of manager.snapshot().servers) {
    expect(s.state).toBe('connected');
    if (s.state === 'connected' && s.name !== 's07')
      expect(s.client).toBe(clientsBefore.get(s.name));
  }
  // Removed and added: one closes, one connects.
  const next = [...edited.filter((s) => s.name !== 's00'), fault('new', 'ok', tmp.file('new.log'))];
  const second = await manager.reload(next);
  expect(second.removed).toEqual(['s00']);
  expect(second.added).toEqual(['new']);
  expect(manager.state('s00')).toBeUndefined();
  expect(manager.state('new')?.state).toBe('connected');
});

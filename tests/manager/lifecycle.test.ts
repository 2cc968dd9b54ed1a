import { writeFileSync } from 'node:fs';
import type { ResolvedServer } from '@mcpkit/config';
import { McpManager, type ServerState, ServerUnavailableError } from '@mcpkit/manager';
import { describe, expect, test } from 'vitest';
import { fault, isAlive, nextEvent, startedPids, tempDir } from './helpers.js';

const stateOf = (manager: McpManager, name: string) => manager.state(name)?.state;
const waitFor = (manager: McpManager, name: string, predicate: (s: ServerState) => boolean) =>
  nextEvent<{ name: string; state: ServerState }>(
    (l) => manager.on('statechange', l),
    (e) => e.name === name && predicate(e.state),
  );

describe('lazy start with an on-disk tool-list cache', () => {
  test('with a warm cache, tools() answers without spawning anything; a server starts on its first call', async () => {
    using tmp = tempDir();
    const cacheDir = tmp.file('cache');
    const servers = ['a', 'b', 'c'].map((n) => fault(n, 'ok', tmp.file(`${n}.log`)));
    const starts = () => servers.map((s) => startedPids(tmp.file(`${s.name}.log`)).length);
    {
      await using cold = new McpManager({ servers, lazyStart: { cacheDir } });
      await cold.connectAll();
      expect(cold.snapshot().servers.map((s) => s.state)).toEqual([
        'connected',
        'connected',
        'connected',
      ]);
    }
    expect(starts()).toEqual([1, 1, 1]);

    await using warm = new McpManager({ servers, lazyStart: { cacheDir } });
    await warm.connectAll();
    expect(warm.snapshot().servers.map((s) => s.state)).toEqual(['pending', 'pending', 'pending']);
    const tools = await warm.tools();
    expect(tools).toHaveLength(9);
    expect(starts()).toEqual([1, 1, 1]);
    const echo = tools.find((t) => t.name === 'mcp__b__echo')!;
    expect((await echo.call({ text: 'woke up' })).text).toBe('woke up');
    expect(starts()).toEqual([1, 2, 1]);
    expect(stateOf(warm, 'b')).toBe('connected');
  });

  test('regression: two servers with identical configs under different names shared one lazy-start cache file (one always started cold)', async () => {
    using tmp = tempDir();
    const cacheDir = tmp.file('cache');
    // The same entry under two names: one log, so the count is of both servers' starts.
    const log = tmp.file('both.log');
    const servers = ['twin-a', 'twin-b'].map((n) => fault(n, 'ok', log));
    {
      await using cold = new McpManager({ servers, lazyStart: { cacheDir } });
      await cold.connectAll();
    }
    expect(startedPids(log)).toHaveLength(2);
    await using warm = new McpManager({ servers, lazyStart: { cacheDir } });
    await warm.connectAll();
    expect(warm.snapshot().servers.map((s) => s.state)).toEqual(['pending', 'pending']);
    const names = (await warm.tools()).map((t) => t.name);
    expect(names).toContain('mcp__twin-a__echo');
    expect(names).toContain('mcp__twin-b__echo');
    expect(startedPids(log)).toHaveLength(2);
    const { toolCacheFile } = await import('../../packages/manager/src/lazy-start.js');
    expect(toolCacheFile(cacheDir, servers[0]!)).not.toBe(toolCacheFile(cacheDir, servers[1]!));
  });

  test('a cache file that is not what the manager wrote is ignored (the server starts)', async () => {
    using tmp = tempDir();
    const cacheDir = tmp.file('cache');
    const server = fault('a', 'ok', tmp.file('a.log'));
    {
      await using first = new McpManager({ servers: [server], lazyStart: { cacheDir } });
      await first.connectAll();
    }
    const { toolCacheFile } = await import('../../packages/manager/src/lazy-start.js');
    writeFileSync(
      toolCacheFile(cacheDir, server),
      JSON.stringify({ format: 1, name: 'a', tools: [{ name: 1 }] }),
    );
    await using second = new McpManager({ servers: [server], lazyStart: { cacheDir } });
    await second.connectAll();
    expect(stateOf(second, 'a')).toBe('connected');
    expect(startedPids(tmp.file('a.log'))).toHaveLength(2);
  });
});

test('idle stop: a server without calls is stopped, keeps its tools listed, and restarts on demand', async () => {
  using tmp = tempDir();
  const log = tmp.file('a.log');
  await using manager = new McpManager({
    servers: [fault('a', 'ok', log)],
    limits: { idleStopMs: 300 },
  });
  const stopped = waitFor(
    manager,
    'a',
    (s) => s.state === 'pending' && /without a call/.test(s.reason ?? ''),
  );
  await manager.connectAll();
  await stopped;
  const [pid] = startedPids(log);
  expect(isAlive(pid!)).toBe(false);
  expect((await manager.tools()).map((t) => t.name)).toContain('mcp__a__echo');
  expect((await manager.callTool('a', 'echo', { text: 'again' })).text).toBe('again');
  expect(startedPids(log)).toHaveLength(2);
});

test('health pings: a server that stops answering is dropped after 2 missed pings and reconnected', async () => {
  using tmp = tempDir();
  const log = tmp.file('deaf.log');
  await using manager = new McpManager({
    servers: [fault('deaf', 'deaf', log)],
    limits: { pingIntervalMs: 200 },
    reconnect: { initialDelayMs: 50, jitter: 0 },
  });
  const dropped = waitFor(
    manager,
    'deaf',
    (s) => s.state === 'pending' && /2 health pings/.test(s.reason ?? ''),
  );
  await manager.connectAll();
  await dropped;
  await waitFor(manager, 'deaf', (s) => s.state === 'connected');
  expect(startedPids(log).length).toBeGreaterThanOrEqual(2);
});

test('scope: referenced servers share the parent connection, inline ones are owned and closed with the scope', async () => {
  using tmp = tempDir();
  await using parent = new McpManager({ servers: [fault('shared', 'ok'), fault('other', 'ok')] });
  await parent.connectAll();
  const inlineLog = tmp.file('inline.log');
  const inline = fault('mine', 'ok', inlineLog);
  const scope = parent.scope({ servers: ['shared', { name: 'mine', config: inline.config }] });
  await scope.connectAll();
  const names = (await scope.tools()).map((t) => t.server);
  expect(new Set(names)).toEqual(new Set(['shared', 'mine']));
  expect((await parent.tools()).some((t) => t.server === 'mine')).toBe(false);
  expect(scope.snapshot().servers.map((s) => `${s.name}:${s.state}`)).toEqual([
    'shared:connected',
    'mine:connected',
  ]);
  expect(scope.resolveToolName('mcp__other__echo')).toBeUndefined();
  const [pid] = startedPids(inlineLog);
  await scope.close();
  expect(isAlive(pid!)).toBe(false);
  expect(stateOf(parent, 'shared')).toBe('connected');
  expect(() => parent.scope({ servers: ['nope'] })).toThrow(/server "nope" is not managed here/);
});

test('two-phase load: a late source connects when it arrives without delaying the first; duplicates by signature are dropped', async () => {
  using tmp = tempDir();
  const first = fault('manual', 'ok');
  let deliver!: (servers: ResolvedServer[]) => void;
  const late = new Promise<ResolvedServer[]>((resolve) => {
    deliver = resolve;
  });
  await using manager = new McpManager({ servers: [first] });
  const snapshot = await manager.connectAll({ late });
  expect(snapshot.servers.map((s) => s.name)).toEqual(['manual']);
  const arrived = waitFor(manager, 'connector', (s) => s.state === 'connected');
  deliver([
    { ...first, name: 'same-as-manual', scope: 'connector' },
    fault('connector', 'ok', tmp.file('c.log')),
  ]);
  await arrived;
  expect(manager.snapshot().servers.map((s) => s.name)).toEqual(['manual', 'connector']);
});

test('disable, enable, disconnect, reconnect', async () => {
  using tmp = tempDir();
  const log = tmp.file('a.log');
  await using manager = new McpManager({ servers: [fault('a', 'ok', log)] });
  await manager.connectAll();
  await manager.disable('a');
  expect(stateOf(manager, 'a')).toBe('disabled');
  expect(isAlive(startedPids(log)[0]!)).toBe(false);
  const error = await manager.callTool('a', 'echo', {}).catch((e: Error) => e);
  expect(error).toBeInstanceOf(ServerUnavailableError);
  // Its next step once, and the server named once (it said both twice before).
  const message = (error as Error).message;
  expect(message).toBe('server "a" was disabled by the host; call enable("a")');
  expect((error as ServerUnavailableError).state).toBe('disabled');
  expect((await manager.enable('a')).state).toBe('connected');
  await manager.disconnect('a');
  expect(stateOf(manager, 'a')).toBe('disabled');
  expect((await manager.reconnect('a')).state).toBe('connected');
  expect(startedPids(log)).toHaveLength(3);
  await expect(manager.reconnect('nope')).rejects.toThrow(
    /server "nope" is not managed here; known servers: a/,
  );
});

test('regression: a second stop while the first is still killing the process waits for it (idle stop published a stopped state while the process lived)', async () => {
  using tmp = tempDir();
  const log = tmp.file('a.log');
  await using manager = new McpManager({ servers: [fault('a', 'ok', log)] });
  await manager.connectAll();
  const first = manager.disable('a');
  await manager.disconnect('a');
  expect(isAlive(startedPids(log)[0]!)).toBe(false);
  await first;
  expect(stateOf(manager, 'a')).toBe('disabled');
});

test('enable() on a connected server keeps its one connection (no second process)', async () => {
  using tmp = tempDir();
  const log = tmp.file('a.log');
  await using manager = new McpManager({ servers: [fault('a', 'ok', log)] });
  await manager.connectAll();
  const before = manager.state('a');
  await manager.enable('a');
  expect(manager.state('a')).toBe(before);
  expect(startedPids(log)).toHaveLength(1);
});

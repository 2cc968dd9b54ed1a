import { type ConnectedState, type ManagerEvents, McpManager, systemClock } from '@mcpkit/manager';
import { describe, expect, test } from 'vitest';
import { fault, listRequests, nextEvent, tempDir } from './helpers.js';

/** The real clock, but one a test can move forward (timers still run on real time). */
function movableClock() {
  let offset = 0;
  return {
    clock: { ...systemClock, now: () => systemClock.now() + offset },
    advance(ms: number) {
      offset += ms;
    },
  };
}

function connected(manager: McpManager, name: string): ConnectedState {
  const state = manager.state(name);
  if (state?.state !== 'connected') throw new Error(`${name} is ${state?.state}`);
  return state;
}

describe('a list that failed is part of the server state', () => {
  test('a failed tools/list leaves the server connected but degraded: which list, why, the next step', async () => {
    using dir = tempDir();
    await using manager = new McpManager({
      servers: [fault('broken', 'list-error', dir.file('log')), fault('fine', 'ok')],
    });
    await manager.connectAll();
    const state = connected(manager, 'broken');
    expect(state.degraded).toHaveLength(1);
    const [failure] = state.degraded!;
    expect(failure).toMatchObject({
      list: 'tools',
      rpcCode: -32603,
      nextStep: { kind: 'retry' },
    });
    expect(failure!.message).toContain('the tool registry is unavailable');
    expect(failure!.nextStep).toEqual({ kind: 'retry', at: failure!.retryAt });
    // serverTools still rejects with the server's own error.
    await expect(manager.serverTools('broken')).rejects.toBe(failure!.error);
    // The server whose list came is not degraded.
    expect(connected(manager, 'fine').degraded).toBeUndefined();
    expect(manager.snapshot().servers.find((s) => s.name === 'broken')).toBe(state);
  });

  test('a list that comes on a later fetch clears the degraded mark, with a statechange', async () => {
    using dir = tempDir();
    const log = dir.file('log');
    const { clock, advance } = movableClock();
    await using manager = new McpManager({
      servers: [fault('flaky', 'list-error-once', log)],
      clock,
    });
    await manager.connectAll();
    const failure = connected(manager, 'flaky').degraded![0]!;
    const cleared = nextEvent<ManagerEvents['statechange']>(
      (l) => manager.on('statechange', l),
      (e) => e.name === 'flaky' && e.state.state === 'connected' && !e.state.degraded,
    );
    advance(failure.retryAt - clock.now());
    const tools = await manager.tools();
    expect(tools.map((t) => t.tool).sort()).toEqual(['crash', 'echo', 'pid']);
    const event = await cleared;
    expect(event.reason).toBe('its lists came back');
    expect((event.previous as ConnectedState).degraded).toHaveLength(1);
    expect(connected(manager, 'flaky').degraded).toBeUndefined();
    expect(listRequests(log)).toBe(2);
  });
});

describe('a failing list is asked once per backoff window', () => {
  test('30 reads of a failing tools/list send one request; after the window, one more', async () => {
    using dir = tempDir();
    const log = dir.file('log');
    const { clock, advance } = movableClock();
    await using manager = new McpManager({
      servers: [fault('broken', 'list-error', log), fault('fine', 'ok')],
      clock,
    });
    await manager.connectAll();
    expect(listRequests(log)).toBe(1);
    for (let i = 0; i < 30; i++) {
      await manager.tools();
      await manager.serverTools('broken').catch(() => {});
    }
    expect(listRequests(log)).toBe(1);
    const first = connected(manager, 'broken').degraded![0]!;
    advance(first.retryAt - clock.now());
    await Promise.all([manager.tools(), manager.tools(), manager.serverTools('broken')]).catch(
      () => {},
    );
    for (let i = 0; i < 10; i++) await manager.tools();
    expect(listRequests(log)).toBe(2);
    // The second failure in a row waits twice as long.
    const second = connected(manager, 'broken').degraded![0]!;
    expect(second.retryAt - second.failedAt).toBe(2 * (first.retryAt - first.failedAt));
  });
});

describe('malformed tools are repaired or left out one by one, never the whole list', () => {
  test('schemas of only "$schema" (server-gitlab) or without "type" are repaired; a string schema and a nameless tool are dropped, each with a warning', async () => {
    await using manager = new McpManager({ servers: [fault('gitlab', 'bad-schemas')] });
    const warnings: string[] = [];
    manager.on('warning', ({ server, error }) => warnings.push(`${server}: ${error.message}`));
    await manager.connectAll();
    const tools = await manager.serverTools('gitlab');
    expect(tools.map((t) => t.name)).toEqual([
      'echo',
      'pid',
      'crash',
      'search_repositories',
      'untyped',
    ]);
    expect(tools[3]!.inputSchema).toEqual({
      type: 'object',
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    expect(tools[4]!.inputSchema).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
    const state = connected(manager, 'gitlab');
    expect(state.degraded).toBeUndefined();
    expect(state.toolIssues?.map((i) => [i.tool, i.action])).toEqual([
      ['search_repositories', 'repaired'],
      ['untyped', 'repaired'],
      ['stringly', 'dropped'],
      ['#6', 'dropped'],
    ]);
    expect(warnings).toEqual([
      'gitlab: server "gitlab": tool "search_repositories" repaired: its inputSchema had no "type"; read as "type": "object"',
      'gitlab: server "gitlab": tool "untyped" repaired: its inputSchema had no "type"; read as "type": "object"',
      expect.stringMatching(
        /^gitlab: server "gitlab": tool "stringly" left out: inputSchema\.type: /,
      ),
      'gitlab: server "gitlab": tool "#6" left out: it has no name',
    ]);
    // The repaired tool can be called.
    const result = await manager.callTool('gitlab', 'search_repositories', { text: 'x' });
    expect(result.isError).toBe(false);
  });

  test('the same repairs in a list fetched again are not warned about again (mcpkit serve printed all of them at every fetch until the rate limit cut in)', async () => {
    await using manager = new McpManager({ servers: [fault('gitlab', 'bad-schemas')] });
    const warnings: string[] = [];
    manager.on('warning', ({ error }) => warnings.push(error.message));
    await manager.connectAll();
    await manager.serverTools('gitlab');
    expect(warnings).toHaveLength(4);
    // A fetch of the same list, as the gateway makes with { fresh: true }.
    const client = await manager.client('gitlab');
    const again = await client.listTools({ fresh: true });
    expect(again.map((t) => t.name)).toContain('search_repositories');
    expect(warnings).toHaveLength(4);
    expect(connected(manager, 'gitlab').toolIssues).toHaveLength(4);
  });
});

describe('host names resolve once a list is published', () => {
  test('after connectAll and a toolschange, resolveToolName and callHostTool work without tools()', async () => {
    await using manager = new McpManager({ servers: [fault('t', 'ok')] });
    const named: string[] = [];
    const resolvedInListener: unknown[] = [];
    manager.on('toolschange', (d) => {
      named.push(...d.added.map((t) => t.name));
      // Already while the event is delivered.
      resolvedInListener.push(manager.resolveToolName('mcp__t__echo'));
    });
    await manager.connectAll();
    expect(named).toContain('mcp__t__echo');
    expect(resolvedInListener).toEqual([{ server: 't', tool: 'echo' }]);
    expect(manager.resolveToolName('mcp__t__echo')).toEqual({ server: 't', tool: 'echo' });
    const result = await manager.callHostTool('mcp__t__echo', { text: 'hello' });
    expect(result.text).toBe('hello');
  });
});

import {
  ConnectTimeoutError,
  McpManager,
  type ServerState,
  ServerUnavailableError,
} from '@mcpkit/manager';
import { describe, expect, test } from 'vitest';
import { fault, isAlive, nextEvent, startedPids, tempDir } from './helpers.js';

const failed = (s: ServerState | undefined) => {
  if (s?.state !== 'failed') throw new Error(`expected failed, got ${JSON.stringify(s)}`);
  return s;
};

describe('fault fixtures over stdio', () => {
  test('crash at start: failed with the exit code, the stderr tail and a next step; other servers unaffected', async () => {
    await using manager = new McpManager({
      servers: [fault('broken', 'crash-start'), fault('fine', 'ok')],
    });
    await manager.connectAll();
    const broken = failed(manager.state('broken'));
    expect(broken.exitCode).toBe(7);
    expect(broken.stderrTail).toContain('missing configuration');
    expect(broken.error.message).toMatch(
      /^server "broken": could not connect: .*exited with code 7/s,
    );
    expect(broken.error.message).toContain('reconnect("broken")');
    expect((broken.error as { code?: string }).code).toBe('MCPKIT_CONNECT_FAILED');
    expect(manager.state('fine')?.state).toBe('connected');
    expect((await manager.tools()).map((t) => t.name)).toEqual([
      'mcp__fine__crash',
      'mcp__fine__echo',
      'mcp__fine__pid',
    ]);
  });

  test('hang at initialize: the connect budget runs out, the process is stopped', async () => {
    using tmp = tempDir();
    const log = tmp.file('starts.log');
    await using manager = new McpManager({
      servers: [fault('hangs', 'hang-init', log)],
      limits: { connectTimeoutMs: 1500 },
    });
    await manager.connectAll();
    const state = failed(manager.state('hangs'));
    expect(state.error.cause).toBeInstanceOf(ConnectTimeoutError);
    expect(state.error.message).toContain('did not finish connecting within 1500 ms');
    const [pid] = startedPids(log);
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid!)).toBe(false);
  });

  test('garbage on stdout: skipped with a warning event, the server still works', async () => {
    await using manager = new McpManager({ servers: [fault('noisy', 'garbage')] });
    const warnings: string[] = [];
    manager.on('warning', (w) => warnings.push(`${w.server}: ${w.error.message}`));
    await manager.connectAll();
    expect(manager.state('noisy')?.state).toBe('connected');
    const result = await manager.callTool('noisy', 'echo', { text: 'still here' });
    expect(result.text).toBe('still here');
    expect(warnings.some((w) => w.startsWith('noisy: '))).toBe(true);
  });

  test('slow start: connected within the budget', async () => {
    await using manager = new McpManager({ servers: [fault('slow', 'slow-start')] });
    await manager.connectAll();
    const state = manager.state('slow');
    expect(state?.state).toBe('connected');
    if (state?.state === 'connected') expect(state.serverInfo?.name).toBe('fault-slow-start');
  });

  test('crash mid-call: the call fails with the exit code, the server is restarted and calls work again', async () => {
    using tmp = tempDir();
    const log = tmp.file('starts.log');
    await using manager = new McpManager({
      servers: [fault('crashy', 'crash-call', log)],
      reconnect: { initialDelayMs: 50, jitter: 0 },
    });
    await manager.connectAll();
    const firstPid = Number((await manager.callTool('crashy', 'pid', {})).text);
    const pending = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'pending',
    );
    const error = await manager.callTool('crashy', 'crash', {}).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect((error as Error).message).toMatch(
      /^server "crashy" is disconnected: .*exited with code 9.*retry the call$/s,
    );
    const p = (await pending).state;
    expect(p.state === 'pending' && p.reconnectAttempt).toBe(1);
    // A call on a pending server waits for the shared immediate attempt.
    const secondPid = Number((await manager.callTool('crashy', 'pid', {})).text);
    expect(secondPid).not.toBe(firstPid);
    expect(startedPids(log)).toHaveLength(2);
  });

  test('a call on a failed server names the server, the state and the next step', async () => {
    await using manager = new McpManager({ servers: [fault('broken', 'crash-start')] });
    await manager.connectAll();
    const error = await manager.callTool('broken', 'echo', {}).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect((error as Error).message).toMatch(
      /^server "broken" is failed: .*reconnect\("broken"\)/s,
    );
  });
});

test("hints: a host's own next steps replace the manager's API names in state errors and call errors", async () => {
  await using manager = new McpManager({
    servers: [fault('broken', 'crash-start')],
    hints: { reconnect: (s) => `run "myhost restart ${s}"` },
  });
  await manager.connectAll();
  const state = manager.state('broken');
  expect(state?.state).toBe('failed');
  const stateMessage = state?.state === 'failed' ? state.error.message : '';
  expect(stateMessage).toContain('then run "myhost restart broken"');
  expect(stateMessage).not.toContain('reconnect(');
  const error = await manager.callTool('broken', 'echo', {}).catch((e: Error) => e);
  expect(error).toBeInstanceOf(ServerUnavailableError);
  expect((error as Error).message).toMatch(
    /^server "broken" is failed: .*run "myhost restart broken"/s,
  );
  expect((error as Error).message).not.toContain('reconnect(');
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CrashLoopError, McpManager, type ServerState } from '@mcpkit/manager';
import { afterEach, describe, expect, test } from 'vitest';
import { refusedUrl } from '../support/refused-url.js';
import { fault, nextEvent, resolved, tempDir } from './helpers.js';

/**
 * Issue #22 §2: a failed state carries why (`failure`) and what gets it back (`nextStep`)
 * as facts, classified from the errors' classes and codes, against real failing servers.
 */

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A real HTTP server on 127.0.0.1 that answers every request with `status`. */
async function answering(status: number, headers: Record<string, string> = {}): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(`status ${status}`);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

async function firstState(
  entry: Parameters<typeof resolved>[1],
  options: Partial<ConstructorParameters<typeof McpManager>[0]> = {},
): Promise<ServerState> {
  await using manager = new McpManager({
    servers: [resolved('s', entry)],
    ...options,
  });
  await manager.connectAll();
  return manager.state('s')!;
}

describe('failed states carry a structured cause and next step', () => {
  test('a command that does not exist: spawn-failed with the command and ENOENT; fix the entry', async () => {
    const state = await firstState({ type: 'stdio', command: 'mcpkit-no-such-command-22' });
    expect(state.state).toBe('failed');
    if (state.state !== 'failed') return;
    expect(state.failure).toEqual({
      kind: 'spawn-failed',
      command: 'mcpkit-no-such-command-22',
      errno: 'ENOENT',
    });
    expect(state.nextStep).toEqual({ kind: 'fix-config' });
    // The error carries the same facts as the state.
    expect(state.error).toMatchObject({ failure: state.failure, nextStep: state.nextStep });
  });

  test('a server that exits before answering: exited with its exit code', async () => {
    const state = await firstState(fault('s', 'crash-start').config);
    if (state.state !== 'failed') throw new Error(`expected failed, got ${state.state}`);
    expect(state.failure).toEqual({ kind: 'exited', exitCode: 7 });
    expect(state.nextStep).toEqual({ kind: 'fix-config' });
    expect(state.exitCode).toBe(7);
  });

  test('an HTTP 500 server: http-status 500 with its URL; retry (the trouble is the server’s)', async () => {
    const url = await answering(500);
    const state = await firstState({ type: 'http', url });
    if (state.state !== 'failed') throw new Error(`expected failed, got ${state.state}`);
    expect(state.failure).toEqual({ kind: 'http-status', status: 500, url });
    expect(state.nextStep).toEqual({ kind: 'retry' });
  });

  test('an HTTP 401 server without OAuth: needs-auth, with needs-sign-in and sign-in', async () => {
    const url = await answering(401);
    const state = await firstState({ type: 'http', url });
    expect(state.state).toBe('needs-auth');
    if (state.state !== 'needs-auth') return;
    expect(state.failure.kind).toBe('needs-sign-in');
    expect(state.nextStep).toEqual({ kind: 'sign-in' });
  });

  test('a refused port: unreachable, with the URL and ECONNREFUSED; reconnect once it runs', async () => {
    const url = await refusedUrl();
    const state = await firstState({ type: 'streamable-http', url });
    if (state.state !== 'failed') throw new Error(`expected failed, got ${state.state}`);
    expect(state.failure).toEqual({ kind: 'unreachable', url, errno: 'ECONNREFUSED' });
    expect(state.nextStep).toEqual({ kind: 'reconnect' });
  });

  test('a server that never answers initialize: timeout with the budget; raise the connect limit', async () => {
    const state = await firstState(fault('s', 'hang-init').config, {
      limits: { connectTimeoutMs: 300 },
    });
    if (state.state !== 'failed') throw new Error(`expected failed, got ${state.state}`);
    expect(state.failure).toEqual({ kind: 'timeout', timeoutMs: 300 });
    expect(state.nextStep).toEqual({ kind: 'raise-limit', option: 'limits.connectTimeoutMs' });
  });

  test('a crash loop: crash-loop with the attempts, window and last exit code; fix the server', async () => {
    using tmp = tempDir();
    await using manager = new McpManager({
      servers: [fault('looping', 'crash-after', tmp.file('starts.log'))],
      reconnect: { initialDelayMs: 20, maxDelayMs: 40, jitter: 0 },
    });
    const held = nextEvent<{ state: ServerState }>(
      (l) => manager.on('statechange', l),
      (e) => e.state.state === 'failed',
    );
    await manager.connectAll();
    const state = (await held).state;
    if (state.state !== 'failed') throw new Error('unreachable');
    expect(CrashLoopError.isInstance(state.error)).toBe(true);
    expect(state.failure).toEqual({
      kind: 'crash-loop',
      attempts: 5,
      windowMs: 60_000,
      exitCode: 5,
    });
    expect(state.nextStep).toEqual({ kind: 'fix-config' });
    // A call to it is refused with the same facts.
    const error = await manager.callTool('looping', 'echo', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: state.failure, nextStep: state.nextStep });
  });

  test('a server the config disables is not contacted: disabled by config; enable it', async () => {
    await using manager = new McpManager({
      servers: [
        resolved('off', { type: 'stdio', command: 'mcpkit-no-such-command-22', disabled: true }),
      ],
    });
    await manager.connectAll();
    const state = manager.state('off')!;
    expect(state).toMatchObject({
      state: 'disabled',
      failure: { kind: 'disabled', by: 'config' },
      nextStep: { kind: 'enable', by: 'config' },
    });
  });
});

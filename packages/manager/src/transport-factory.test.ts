import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResolvedServer, ServerConfig, ServerStatus } from '@mcpkit/config';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { WebSocketTransport } from '@mcpkit/transport-websocket';
import { afterEach, describe, expect, test } from 'vitest';
import { ServerNotEnabledError, UnsupportedServerTypeError } from './errors.js';
import { McpManager } from './mcp-manager.js';
import { createTransport, type TransportContext } from './transport-factory.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function entry(
  name: string,
  config: ServerConfig,
  status: ServerStatus = 'enabled',
): ResolvedServer {
  return {
    name,
    scope: 'project',
    source: 'test',
    config,
    status,
    reason: `status ${status} in the test`,
    policy: { allowed: true } as ResolvedServer['policy'],
    missingVariables: [],
  };
}

const context: TransportContext = {
  env: { PATH: process.env.PATH },
  cwd: process.cwd(),
  home: tmpdir(),
  auth: {},
  inProcess: {},
  httpFallback: true,
};

/** A stdio entry that would leave a file behind if it were ever spawned. */
function tripwire(): { config: ServerConfig; marker: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-gate-'));
  dirs.push(dir);
  const marker = path.join(dir, 'spawned');
  return {
    marker,
    config: {
      type: 'stdio',
      command: process.execPath,
      args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`],
    },
  };
}

describe('the enabled-status gate (issue #10 finding 4)', () => {
  for (const status of ['pending-approval', 'rejected', 'blocked', 'disabled'] as const) {
    test(`a "${status}" server is refused by the factory: typed error, nothing spawned`, async () => {
      const { config, marker } = tripwire();
      const error = await Promise.resolve(
        createTransport(entry('proj', config, status), context),
      ).catch((e) => e);
      expect(error).toBeInstanceOf(ServerNotEnabledError);
      expect(error.code).toBe('MCPKIT_SERVER_NOT_ENABLED');
      expect(error.message).toMatch(
        new RegExp(`^server "proj": not started because its status is "${status}"`),
      );
      expect(existsSync(marker)).toBe(false);
    });
  }

  test('a config entry with "disabled": true is refused even when its status says enabled', async () => {
    const { config, marker } = tripwire();
    await expect(
      Promise.resolve(createTransport(entry('off', { ...config, disabled: true }), context)),
    ).rejects.toBeInstanceOf(ServerNotEnabledError);
    expect(existsSync(marker)).toBe(false);
  });

  test("the gate runs before a host's own transportFactory; the server is listed disabled", async () => {
    const { config } = tripwire();
    let calls = 0;
    await using manager = new McpManager({
      servers: [entry('proj', config, 'pending-approval')],
      transportFactory: () => {
        calls++;
        throw new Error('must not be called');
      },
    });
    await manager.connectAll();
    const state = manager.state('proj');
    expect(state?.state).toBe('disabled');
    expect(state?.state === 'disabled' && state.reason).toMatch(/"pending-approval"/);
    // The next step is a fact a host words, not a sentence of the manager's.
    expect(state?.state === 'disabled' && [state.failure, state.nextStep]).toEqual([
      { kind: 'not-approved' },
      { kind: 'approve' },
    ]);
    await expect(manager.enable('proj')).rejects.toBeInstanceOf(ServerNotEnabledError);
    expect(calls).toBe(0);
  });
});

describe('config entry to transport', () => {
  test("a stdio entry's transport gets the context's stdioJoinWrites (a value StdioTransport refuses shows it arrived)", async () => {
    const stdio = entry('s', { command: process.execPath, args: ['-e', '0'] });
    const made = await createTransport(stdio, { ...context, stdioJoinWrites: 'turn' });
    await made.close();
    await expect(
      Promise.resolve(
        createTransport(stdio, {
          ...context,
          stdioJoinWrites: 'later' as unknown as 'turn',
        }),
      ),
    ).rejects.toThrow(/"joinWrites" must be 'tick' or 'turn'/);
  });

  test('ws-ide passes its auth token; sdk uses the host-registered factory; unknown types are refused', async () => {
    const ws = await createTransport(
      entry('ide', { type: 'ws-ide', url: 'ws://127.0.0.1:1/', ideName: 'x', authToken: 'secret' }),
      context,
    );
    expect(ws).toBeInstanceOf(WebSocketTransport);
    await ws.close();
    const [client] = createInProcessPair();
    const sdk = await createTransport(entry('inproc', { type: 'sdk', name: 'mine' }), {
      ...context,
      inProcess: { mine: () => client },
    });
    expect(sdk).toBe(client);
    await expect(
      Promise.resolve(createTransport(entry('inproc', { type: 'sdk', name: 'other' }), context)),
    ).rejects.toThrow(/no in-process server "other" is registered/);
    await expect(
      Promise.resolve(
        createTransport(
          entry('p', { type: 'proxy', url: 'https://x.invalid/mcp', id: 'c1' }),
          context,
        ),
      ),
    ).rejects.toBeInstanceOf(UnsupportedServerTypeError);
  });
});

describe('working directory', () => {
  test("a project file's stdio server runs in that file's folder; others in cwd", async () => {
    const { workingDirectoryOf } = await import('./auth-wiring.js');
    const project = {
      ...entry('p', { command: 'x' }),
      scope: 'project' as const,
      source: '/repo/sub/.mcp.json',
    };
    expect(workingDirectoryOf(project, '/elsewhere')).toBe('/repo/sub');
    expect(workingDirectoryOf({ ...project, scope: 'user' }, '/elsewhere')).toBe('/elsewhere');
    expect(workingDirectoryOf({ ...project, source: '--config argument 1' }, '/elsewhere')).toBe(
      '/elsewhere',
    );
  });
});

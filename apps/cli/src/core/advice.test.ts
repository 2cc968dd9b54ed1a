import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import { McpManager, ServerConnectError, type ServerState } from '@mcpkit/manager';
import { describe, expect, it } from 'vitest';
import { refusedUrl } from '../../../../tests/support/refused-url.js';
import { gatewayRefusal, summarize } from './advice.js';

const entry = (name: string, config: ServerConfig): ResolvedServer =>
  ({
    name,
    scope: 'user',
    source: 'test',
    config,
    status: 'enabled',
    reason: 'test entry',
    policy: { allowed: true },
    missingVariables: [],
  }) as unknown as ResolvedServer;

/** The same failure, its library message (and its cause's) in other words. */
function reworded(state: Extract<ServerState, { state: 'failed' }>): ServerState {
  const error = state.error as ServerConnectError;
  return {
    ...state,
    error: new ServerConnectError(
      state.name,
      new Error('entirely different library words'),
      'do X',
      {
        failure: error.failure,
        nextStep: error.nextStep,
      },
    ),
  };
}

describe("the CLI's advice comes from failure and nextStep, not from the library's message", () => {
  it('a refused port and a missing command: the next step stays when the message changes', async () => {
    const url = await refusedUrl();
    await using manager = new McpManager({
      servers: [
        entry('web', { type: 'streamable-http', url }),
        entry('gone', { type: 'stdio', command: 'mcpkit-no-such-command-22', args: [] }),
        entry('quits', {
          type: 'stdio',
          command: process.execPath,
          args: ['-e', 'process.exit(3)'],
        }),
      ],
    });
    await manager.connectAll();
    const advice: Record<string, string> = {};
    for (const name of ['web', 'gone', 'quits']) {
      const state = manager.state(name)!;
      if (state.state !== 'failed') throw new Error(`${name}: expected failed, got ${state.state}`);
      advice[name] = summarize(state).next;
      expect(summarize(reworded(state)).next).toBe(advice[name]);
    }
    expect(advice.web).toBe(
      `check that the server at ${url} is running (mcpkit list shows the entry)`,
    );
    // ENOENT: the spawn error says what to install; the CLI adds nothing.
    expect(advice.gone).toBe('');
    expect(advice.quits).toBe(
      'check the command of "quits" and its stderr (run "mcpkit -v servers -s quits")',
    );
  });
});

describe('gatewayRefusal: a call an mcpkit gateway refused, worded from the error data', () => {
  it('-32041: the limit and the wait', () => {
    expect(
      gatewayRefusal('gw', 'notes__read', {
        rpcCode: -32041,
        data: { reason: 'rate-limit', retryAfterSeconds: 7, rate: 2, burst: 10 },
      }),
    ).toBe(
      'server "gw" (a gateway) refused the call of its tool "notes__read": your rate limit is spent (2 calls a second, bursts of 10); try again in 7 s',
    );
  });

  it('-32040: the scope that would allow it, or who to ask', () => {
    expect(
      gatewayRefusal('gw', 'notes__write', {
        rpcCode: -32040,
        data: { reason: 'policy', scopes: ['notes:write'] },
      }),
    ).toMatch(
      /access policy does not let you call it; signing in with the scope "notes:write" would/,
    );
    expect(
      gatewayRefusal('gw', 'notes__write', {
        rpcCode: -32040,
        data: { reason: 'policy', scopes: [] },
      }),
    ).toMatch(/ask whoever runs the gateway for access$/);
    expect(
      gatewayRefusal('gw', 't', { rpcCode: -32040, data: { reason: 'audit-failing' } }),
    ).toMatch(/audit log cannot be written/);
  });

  it('another server’s -32040 or -32041 (data that is not a gateway refusal) keeps its own wording', () => {
    expect(gatewayRefusal('s', 't', { rpcCode: -32041, data: 'busy' })).toBeUndefined();
    expect(gatewayRefusal('s', 't', { rpcCode: -32040 })).toBeUndefined();
  });
});

import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import { JsonRpcPeer, MessageTooLargeError, TimeoutError } from '@mcpkit/jsonrpc';
import {
  McpManager,
  ServerConnectError,
  type ServerState,
  ServerUnavailableError,
} from '@mcpkit/manager';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { describe, expect, it } from 'vitest';
import { refusedUrl } from '../../../../tests/support/refused-url.js';
import {
  errorAdvice,
  errorText,
  failedStateOf,
  failureLine,
  gatewayRefusal,
  summarize,
} from './advice.js';

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

/** The first error a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/**
 * A real stdio peer: a Node child that answers "big" with a 4 000-byte line and never
 * answers anything else (so a request to it times out).
 */
async function stdioPeer(maxMessageBytes: number) {
  const script = `
    const rl = require('node:readline').createInterface({ input: process.stdin });
    rl.on('line', (line) => {
      const m = JSON.parse(line);
      if (m.method === 'big')
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { text: 'x'.repeat(4000) } }) + '\\n');
    });`;
  const transport = new StdioTransport({
    command: process.execPath,
    args: ['-e', script],
    name: 'peer',
    maxMessageBytes,
  });
  const peer = new JsonRpcPeer(transport, { label: 'server "peer"' });
  await peer.start();
  return peer;
}

describe('the advice for a library error comes from its class and facts, not its message', () => {
  it('a request that timed out and a message over the limit (a real stdio peer): other words, the same advice', async () => {
    const peer = await stdioPeer(1000);
    try {
      const timeout = await rejection(peer.request('slow', {}, { timeoutMs: 50 }));
      expect(TimeoutError.isInstance(timeout)).toBe(true);
      const tooLarge = await rejection(peer.request('big', {}, { timeoutMs: 10_000 }));
      expect(MessageTooLargeError.isInstance(tooLarge)).toBe(true);

      // The library states the facts; no option of its own is named in its words.
      for (const e of [timeout, tooLarge])
        expect((e as Error).message).not.toMatch(/timeoutMs|maxMessageBytes|[Rr]aise/);
      expect(errorAdvice(timeout)).toBe('(--timeout <ms> allows longer)');
      expect(errorAdvice(tooLarge)).toBe('(--max-message-bytes <n> accepts more)');

      const t = timeout as TimeoutError;
      const m = tooLarge as MessageTooLargeError;
      const rewordedTimeout = new TimeoutError('no answer came (raise nothing)', t.timeoutMs, {
        option: t.option!,
      });
      const rewordedTooLarge = new MessageTooLargeError('too big', m.limitBytes);
      expect(errorAdvice(rewordedTimeout)).toBe(errorAdvice(timeout));
      expect(errorAdvice(rewordedTooLarge)).toBe(errorAdvice(tooLarge));
      // Wrapped by another layer, the advice is found in the cause chain.
      expect(errorAdvice(new Error('call failed', { cause: rewordedTooLarge }))).toBe(
        errorAdvice(tooLarge),
      );
      expect(errorText(rewordedTimeout)).toBe(
        'no answer came (raise nothing) (--timeout <ms> allows longer)',
      );
      // A request's whole-time budget is not --timeout's: no flag is named for it.
      expect(errorAdvice(new TimeoutError('x', 1, { option: 'maxTotalTimeoutMs' }))).toBe('');
    } finally {
      await peer.close();
    }
  });

  it('a call that found its server failed: the next step stays when the message changes', async () => {
    const url = await refusedUrl();
    await using manager = new McpManager({
      servers: [entry('web', { type: 'streamable-http', url })],
    });
    await manager.connectAll();
    const error = await rejection(manager.callTool('web', 't', {}));
    expect(ServerUnavailableError.isInstance(error)).toBe(true);
    const e = error as ServerUnavailableError;
    const state = failedStateOf('web', e)!;
    const advice = summarize(state).next;
    expect(advice).toBe(`check that the server at ${url} is running (mcpkit list shows the entry)`);
    expect(failureLine(state)).toMatch(/^server "web": .*; check that the server at/);
    const reworded = new ServerUnavailableError('web', 'failed', 'other words; do Y', {
      cause: e.cause as Error,
      failure: e.failure!,
      nextStep: e.nextStep!,
    });
    expect(summarize(failedStateOf('web', reworded)!).next).toBe(advice);
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

import type { ResolvedServer } from '@mcpkit/config';
import { expect, test } from 'vitest';
import { reconnectDefaults } from './backoff.js';
import { classifyFailure, initialState } from './classify.js';
import { ConnectTimeoutError, CrashLoopError, ServerNotEnabledError } from './errors.js';
import { defaultHints, resolveHints } from './hints.js';
import { truncationMarker } from './normalize-result.js';

const server = (name: string, status = 'enabled'): ResolvedServer =>
  ({
    name,
    scope: 'user',
    source: 'test',
    config: { type: 'stdio', command: 'x' },
    status,
    reason: 'test',
    policy: { allowed: true },
    missingVariables: [],
  }) as unknown as ResolvedServer;

test('the default hints keep the messages hosts already match on (the CLI rewrites these phrases)', () => {
  const timedOut = classifyFailure('s', server('s'), new ConnectTimeoutError('s', 1500));
  expect(timedOut.error.message.split('raise MCP_TIMEOUT / limits.connectTimeoutMs')).toHaveLength(
    2,
  );
  expect(new CrashLoopError('s', 5, 60_000, 1, undefined).message).toContain(
    'then call reconnect("s")',
  );
  // The gate's refusal states facts only: no command of any host.
  expect(new ServerNotEnabledError(server('s', 'disabled')).message).toBe(
    'server "s": not started because its status is "disabled" (test); nothing was sent to it',
  );
  const auth = Object.assign(new Error('401'), { code: 'MCPKIT_NEEDS_AUTH' });
  const verdict = classifyFailure('s', server('s'), auth);
  expect(verdict.state).toBe('needs-auth');
  expect(verdict.error.message).toContain(
    `sign in with the manager's authenticate("s") (or its "authenticate" tool)`,
  );
  expect(classifyFailure('s', server('s'), new Error('boom')).error.message).toContain(
    'call reconnect("s") to try again',
  );
  expect(truncationMarker(10, 20)).toContain('ask for less, or raise limits.outputBudgetChars]');
  expect(resolveHints(undefined)).toBe(defaultHints);
});

test("a host's hints replace every next step, and no message names the manager's API", () => {
  const hints = resolveHints({
    reconnect: (s) => `run "tool restart ${s}"`,
    signIn: (s) => `run "tool login ${s}"`,
    connectTimeout: 'pass --timeout <ms>',
    outputBudget: 'pass --max-output <chars>',
    hostEnable: (s) => `run "tool on ${s}"`,
  });
  const texts = [
    classifyFailure('s', server('s'), new ConnectTimeoutError('s', 1500), hints).error.message,
    new CrashLoopError('s', 5, 60_000, 1, undefined, hints).message,
    new ServerNotEnabledError(server('s', 'disabled')).message,
    new ServerNotEnabledError(server('s', 'pending-approval')).message,
    classifyFailure(
      's',
      server('s'),
      Object.assign(new Error('401'), { code: 'MCPKIT_NEEDS_AUTH' }),
      hints,
    ).error.message,
    classifyFailure('s', server('s'), new Error('boom'), hints).error.message,
    truncationMarker(10, 20, hints.outputBudget('s')),
  ];
  const hostDisabled = initialState(server('s'), true, reconnectDefaults, hints);
  texts.push(hostDisabled.state === 'disabled' ? hostDisabled.reason : '');
  for (const text of texts)
    expect(text).not.toMatch(/reconnect\(|authenticate\(|enable\(|MCP_TIMEOUT|limits\.|mcpkit /);
  expect(texts.join('\n')).toContain('pass --timeout <ms>');
  expect(texts.join('\n')).toContain('run "tool restart s"');
  expect(texts.join('\n')).toContain('run "tool login s"');
  expect(texts.join('\n')).toContain('run "tool on s"');
  expect(texts.join('\n')).toContain('pass --max-output <chars>');
});

test('a hint that throws or returns nothing falls back to the default (a message always has a next step)', () => {
  const hints = resolveHints({
    reconnect: () => {
      throw new Error('host bug');
    },
    signIn: () => '',
  });
  expect(hints.reconnect('s')).toBe('call reconnect("s")');
  expect(hints.signIn('s')).toBe(defaultHints.signIn('s'));
});

test('a connect timeout states facts only (budget, stderr): its next step is said once, by whoever words nextStep', () => {
  const error = new ConnectTimeoutError('s', 1500, 'npm error code SELF_SIGNED_CERT_IN_CHAIN\n');
  expect(error.message).toBe(
    'server "s": did not finish connecting within 1500 ms (handshake included); the server was stopped; last stderr:\n  npm error code SELF_SIGNED_CERT_IN_CHAIN',
  );
  expect(error.nextStep).toEqual({ kind: 'raise-limit', option: 'limits.connectTimeoutMs' });
  const verdict = classifyFailure('s', server('s'), error);
  expect(verdict.state === 'failed' && verdict.stderrTail).toBe(
    'npm error code SELF_SIGNED_CERT_IN_CHAIN\n',
  );
});

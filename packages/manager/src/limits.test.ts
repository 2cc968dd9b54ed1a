import { describe, expect, test } from 'vitest';
import { parseCommandArguments } from './commands.js';
import { managerDefaults, resolveLimits } from './limits.js';
import { diffServers } from './reload.js';

describe('limits', () => {
  test('env overrides the defaults; explicit options override env; junk env is ignored', () => {
    const env = {
      MCP_SERVER_CONNECTION_BATCH_SIZE: '5',
      MCP_REMOTE_SERVER_CONNECTION_BATCH_SIZE: '7',
      MCP_TIMEOUT: '1234',
      MCP_TOOL_TIMEOUT: 'soon',
    };
    const limits = resolveLimits({ remoteConcurrency: 2 }, env);
    expect(limits.localConcurrency).toBe(5);
    expect(limits.remoteConcurrency).toBe(2);
    expect(limits.connectTimeoutMs).toBe(1234);
    expect(limits.toolTimeoutMs).toBe(managerDefaults.toolTimeoutMs);
    expect(resolveLimits(undefined, { MCP_TIMEOUT: '-5' }).connectTimeoutMs).toBe(30_000);
  });
});

describe('command arguments', () => {
  const declared = [
    { name: 'city', required: true },
    { name: 'note', required: false },
  ];
  test('words map onto declared arguments in order; the last takes the rest', () => {
    expect(parseCommandArguments('s', 'p', declared, '  Lisbon  bring an umbrella ')).toEqual({
      city: 'Lisbon',
      note: 'bring an umbrella',
    });
    expect(parseCommandArguments('s', 'p', declared, { city: 'Porto' })).toEqual({ city: 'Porto' });
  });
  test('a missing required argument is a typed error naming it', () => {
    expect(() => parseCommandArguments('weather', 'forecast', declared, '')).toThrow(
      /^server "weather": prompt "forecast" needs "city"; pass <city> <note\?>$/,
    );
  });
});

describe('reload diff', () => {
  const entry = (name: string, args: string[], env?: Record<string, string>) => ({
    name,
    scope: 'user' as const,
    source: 'x',
    config: { type: 'stdio' as const, command: 'node', args, ...(env ? { env } : {}) },
    status: 'enabled' as const,
    reason: '',
    policy: { allowed: true } as never,
    missingVariables: [],
  });
  test('key order does not count as a change; env does', () => {
    const a = entry('a', ['x'], { A: '1', B: '2' });
    const reordered = {
      ...a,
      config: { env: { B: '2', A: '1' }, args: ['x'], command: 'node', type: 'stdio' as const },
    };
    const current = new Map([
      ['a', a],
      ['b', entry('b', ['y'])],
      ['c', entry('c', ['z'])],
    ]);
    const diff = diffServers(current, [
      reordered,
      entry('b', ['y'], { NEW: '1' }),
      entry('d', ['w']),
    ]);
    expect(diff).toEqual({ unchanged: ['a'], changed: ['b'], added: ['d'], removed: ['c'] });
  });
});

describe('warning rate limit (fake clock)', () => {
  test('20 a minute per server pass, the 21st is reported as the first dropped, the rest are dropped until the window ends', async () => {
    const { RateLimit } = await import('./rate-limit.js');
    let now = 0;
    const limit = new RateLimit({ now: () => now });
    const verdicts = Array.from({ length: 23 }, () => limit.allow('noisy'));
    expect(verdicts.filter((v) => v === 'pass')).toHaveLength(20);
    expect(verdicts.slice(20)).toEqual(['first-dropped', 'drop', 'drop']);
    expect(limit.allow('quiet')).toBe('pass');
    now += 60_000;
    expect(limit.allow('noisy')).toBe('pass');
  });
});

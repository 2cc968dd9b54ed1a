import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type Sandbox, sandbox, serversDir } from './cli-harness.js';

/**
 * Finding 13 of issue #10: `--timeout 99999999999` reached Node's timers, which printed a
 * `TimeoutOverflowWarning` for every request. Numeric options are now checked first.
 */
let box: Sandbox;
let args: string[];
beforeAll(() => {
  box = sandbox();
  const config = box.file('ansi.json', {
    mcpServers: { ansi: { command: 'node', args: [path.join(serversDir, 'cli-ansi-server.mjs')] } },
  });
  args = ['--strict-config', '-c', config];
});
afterAll(() => box[Symbol.dispose]());

const cli = (...rest: string[]) => runCli([...args, ...rest], { env: box.env, cwd: box.cwd });

describe('numeric options out of range', () => {
  it('--timeout 99999999999: one usage line on stderr, exit 2, no TimeoutOverflowWarning', async () => {
    const r = await cli('--timeout', '99999999999', 'tools');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
    expect(r.stderr.split('\n')).toEqual([
      'mcpkit: --timeout must be a whole number of milliseconds from 1 to 2147483647, got "99999999999" (see "mcpkit --help")',
      '',
    ]);
  });

  it.each(['0', '-1', '1e3', 'NaN', '2147483648'])(
    '%s for --timeout and --login-timeout: usage errors',
    async (value) => {
      const [timeout, login] = await Promise.all([
        cli(`--timeout=${value}`, 'tools'),
        cli(`--login-timeout=${value}`, 'login', 'ansi'),
      ]);
      expect(timeout.code).toBe(2);
      expect(timeout.stderr.trim().split('\n')).toHaveLength(1);
      expect(login.code).toBe(2);
      expect(login.stderr).toContain('--login-timeout must be a whole number of milliseconds');
    },
  );

  it('a server whose config "timeout" is out of range fails alone with a message naming it', async () => {
    const config = box.file('bad-timeout.json', {
      mcpServers: {
        ansi: { command: 'node', args: [path.join(serversDir, 'cli-ansi-server.mjs')] },
        slow: {
          command: 'node',
          args: [path.join(serversDir, 'cli-ansi-server.mjs')],
          timeout: 99999999999,
        },
      },
    });
    const r = await runCli(['--strict-config', '-c', config, 'tools'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
    expect(r.stderr).toMatch(/"slow".*timeout/);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('ansi (3 tools)');
  });
});

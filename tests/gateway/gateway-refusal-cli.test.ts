import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runShellPiped } from '../cli/support/shell-piped.js';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { composeBackends, configFile } from './compose-support.js';
import { type HttpGateway, startHttpGateway } from './gateway-process.js';

/**
 * `mcpkit call` through a real `mcpkit serve --http` with an access section (both the built
 * CLI): a tool the caller's policy does not allow comes back -32040, and the CLI says the
 * gateway's policy refused it (not that the gateway has no such tool, though the tool is not
 * in this caller's list), in `mcpkit call` and in `mcpkit shell`; a call over the caller's rate
 * limit (-32041) says so, with the wait.
 */
const TOKEN = 'refusal-cli-token-0123456789abcdef';
const access = {
  rules: [{ subject: ['ci-bot'], servers: ['notes'], tools: ['read_*'] }],
  // One call in the bucket, refilled once in 1 000 s: the second allowed call is limited.
  rateLimit: { rate: 0.001, burst: 1 },
};
const config = configFile({ auth: { static: { subject: 'ci-bot' } }, access });
let gateway: HttpGateway;
let box: Sandbox;
let servers: string;
beforeAll(async () => {
  gateway = await startHttpGateway({ notes: composeBackends().notes }, [
    '--token',
    TOKEN,
    '--gateway-config',
    config.file,
  ]);
  box = sandbox('mcpkit-gateway-refusal-');
  servers = box.file('servers.json', {
    mcpServers: {
      gw: { type: 'http', url: gateway.url.href, headers: { authorization: `Bearer ${TOKEN}` } },
    },
  });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  config.cleanup();
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
});

const cli = (...args: string[]) =>
  runCli(['--strict-config', '-c', servers, ...args], { env: box.env, cwd: box.cwd });

describe('mcpkit call through a gateway that refuses the call', () => {
  it('-32040 by its access policy: worded as the policy refusal, not as an unknown tool', async () => {
    const r = await cli('call', 'gw', 'notes__write', '{}');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'server "gw" (a gateway) refused the call of its tool "notes__write": its access policy does not let you call it',
    );
    expect(r.stderr).not.toContain('has no tool');
    expect(r.stderr).not.toContain('did you mean');
  });

  it('in mcpkit shell as well: a refused call of a tool not in the list is the policy refusal, not an unknown tool', async () => {
    const r = await runShellPiped(
      ['--strict-config', '-c', servers, 'shell'],
      'call gw notes__write {}\n',
      { env: box.env, cwd: box.cwd },
    );
    expect(r.stderr).toContain(
      'server "gw" (a gateway) refused the call of its tool "notes__write": its access policy does not let you call it; ask whoever runs the gateway for access',
    );
    expect(r.stderr).not.toContain('has no tool');
  });

  it('-32041 by its rate limit: the limit and how long to wait', async () => {
    const first = await cli('call', 'gw', 'notes__read_note', '{"id":"1"}');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const limited = await cli('call', 'gw', 'notes__read_note', '{"id":"2"}');
    expect(limited.code).toBe(1);
    expect(limited.stderr).toMatch(
      /server "gw" \(a gateway\) refused the call of its tool "notes__read_note": your rate limit is spent \(0\.001 calls a second, bursts of 1\); try again in \d+ s/,
    );
  });
});

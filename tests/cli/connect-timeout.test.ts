import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  Tmux,
  waitFor,
} from '../hostile/cli-harness.js';

/**
 * A stdio server that prints why it cannot start and then never answers (an `npx` that
 * cannot download its package behind a TLS-intercepting proxy does exactly this): the
 * connect timeout shows that stderr under the server's line, and the advice once.
 */
let box: Sandbox | undefined;
let tmux: Tmux | undefined;
afterEach((context) => {
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen());
  tmux?.close();
  tmux = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

function stuckServer(b: Sandbox): string {
  const script = b.file(
    'stuck-server.mjs',
    [
      "process.stderr.write('npm error code SELF_SIGNED_CERT_IN_CHAIN\\n');",
      "process.stderr.write('npm error self-signed certificate in certificate chain\\n');",
      'setInterval(() => {}, 1000);',
    ].join('\n'),
  );
  return b.file('servers.json', {
    mcpServers: { stuck: { command: process.execPath, args: [script] } },
  });
}

describe('a connect timeout', () => {
  it("shows the server's stderr under its line and says raise --timeout once (pipe)", async () => {
    box = sandbox('mcpkit-cli-timeout-');
    const config = stuckServer(box);
    const run = await runCli(['-c', config, '--timeout', '1500', 'tools'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'mcpkit: server "stuck": did not finish connecting within 1500 ms (handshake included); the server was stopped; raise --timeout <ms> if "stuck" is slow to start, or fix what its stderr says\n    stderr: npm error code SELF_SIGNED_CERT_IN_CHAIN\n    stderr: npm error self-signed certificate in certificate chain\n',
    );
    expect(run.stderr.match(/--timeout/g)).toHaveLength(1);
  });

  it("shows the server's stderr on a terminal, under the server's line in servers", async () => {
    box = sandbox('mcpkit-cli-timeout-');
    const config = stuckServer(box);
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, '--timeout', '1500', 'servers']);
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(1);
    const screen = tmux.screen();
    expect(screen).toMatch(
      /\nstuck +failed: server "stuck": did not finish connecting within 1500 ms \(handshake included\); the server was stopped\n {4}next: raise --timeout <ms> if "stuck" is slow to start, or fix what its stderr says\n {4}stderr: npm error code SELF_SIGNED_CERT_IN_CHAIN\n {4}stderr: npm error self-signed certificate in certificate chain\n/,
    );
    // The progress line that settled says the same, with the stderr under it.
    expect(screen).toMatch(
      /✖ stuck {2}failed: .*the server was stopped\n {4}stderr: npm error code SELF_SIGNED_CERT_IN_CHAIN\n/,
    );
    expect(screen.match(/raise --timeout/g)).toHaveLength(1);
  });
});

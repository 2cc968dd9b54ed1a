import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  serversDir,
  Tmux,
  waitFor,
} from '../hostile/cli-harness.js';

/**
 * Live progress (issue #12): on a terminal, one line per server that settles to its state;
 * nothing when stdout is a pipe. Driven through a real pseudo-terminal (tmux).
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const tiny = path.join(serversDir, 'cli-tiny-server.mjs');

let box: Sandbox | undefined;
let tmux: Tmux | undefined;
let http: Server | undefined;
afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen());
  tmux?.close();
  tmux = undefined;
  if (http) await new Promise((r) => http!.close(r));
  http = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

describe('live progress while connecting', () => {
  it('a terminal sees working, crashing, hanging, needs-auth and pending-approval servers settle; a pipe sees none of it', async () => {
    box = sandbox('mcpkit-cli-progress-');
    const dir = box.dir;
    // A remote server that wants a sign-in: every request gets 401.
    http = createServer((_req, res) => {
      res.writeHead(401, {
        'www-authenticate': `Bearer resource_metadata="http://127.0.0.1:${(http!.address() as AddressInfo).port}/.well-known/oauth-protected-resource"`,
      });
      res.end();
    });
    await new Promise<void>((r) => http!.listen(0, '127.0.0.1', () => r()));
    const port = (http.address() as AddressInfo).port;
    const config = box.file('servers.json', {
      mcpServers: {
        good: { command: process.execPath, args: [fixture, 'ok', path.join(dir, 'good.log')] },
        crashing: {
          command: process.execPath,
          args: ['-e', 'console.error("boom: no API key"); process.exit(3)'],
        },
        hanging: { command: process.execPath, args: [tiny, 'no-init', path.join(dir, 'hang.log')] },
        web: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      },
    });
    // A repository's server nobody approved: listed, never started.
    writeFileSync(
      path.join(box.cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: { repo: { command: 'sh', args: ['-c', `touch ${dir}/repo-started`] } },
      }),
    );
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, '--timeout', '3000', 'tools']);
    // While the hanging server is still connecting, the others have settled.
    const during = await waitFor(() => {
      const screen = tmux!.screen();
      return /✔ good {2}connected/.test(screen) &&
        /✖ crashing {2}failed: .*exited with code 3/.test(screen) &&
        /! web {2}needs-auth: run "mcpkit login web"/.test(screen) &&
        /… hanging {2}connecting/.test(screen)
        ? screen
        : undefined;
    }, 'the settled lines with hanging still connecting');
    expect(during).toMatch(/– repo {2}pending approval: .*run "mcpkit approve repo"/);
    const status = await waitFor(() => tmux!.exitStatus(), 'the CLI to exit');
    expect(status).toBe(1);
    const after = tmux.screen();
    expect(after).toMatch(/✖ hanging {2}failed: .*did not finish connecting within 3000 ms/);
    expect(after).toMatch(/✔ good {2}connected · 4 tools · \d+ ms/);
    expect(existsSync(path.join(dir, 'repo-started')), 'an unapproved server was started').toBe(
      false,
    );
    // Redrawn in place: each server has one line in the final frame.
    expect(after.match(/ good {2}/g)).toHaveLength(1);

    const piped = await runCli(['-c', config, '--timeout', '3000', 'tools'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(piped.stdout).toContain('good (4 tools)');
    expect(piped.stderr).not.toMatch(/[✔✖…]/);
  });
});

/**
 * A stdio server that prints why it cannot start and then never answers (an `npx` that
 * cannot download its package behind a TLS-intercepting proxy does exactly this): the
 * connect timeout shows that stderr under the server's line, and the advice once.
 */
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

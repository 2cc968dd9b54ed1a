import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  processesWith,
  type RecordingServer,
  recordingServer,
  runCli,
  type Sandbox,
  sandbox,
  Tmux,
  waitFor,
} from '../hostile/cli-harness.js';

/**
 * `mcpkit doctor` (issue #12 item 3): each server's findings with their next steps, through
 * a real pseudo-terminal (tmux), and as JSON into a pipe. Exit 1 when anything is wrong.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
let tmux: Tmux | undefined;
const servers: RecordingServer[] = [];
afterEach(async (context) => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen());
  tmux?.close();
  tmux = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

/** A port on 127.0.0.1 that nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Working, missing command, unreachable URL, pending approval, missing variable, garbage, a crash with escapes. */
async function mixedConfig(b: Sandbox): Promise<string> {
  const port = await closedPort();
  writeFileSync(
    path.join(b.cwd, '.mcp.json'),
    JSON.stringify({
      mcpServers: { repo: { command: 'sh', args: ['-c', `touch ${b.dir}/repo-started`] } },
    }),
  );
  return b.file('servers.json', {
    mcpServers: {
      good: { command: process.execPath, args: [fixture, 'ok', path.join(b.dir, 'good.log')] },
      nocmd: { command: 'mcpkit-doctor-no-such-command', args: [] },
      gone: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
      novar: {
        command: process.execPath,
        args: [fixture, 'ok', path.join(b.dir, 'novar.log')],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} for the config to expand
        env: { API_KEY: '${MCPKIT_DOCTOR_UNSET_KEY}' },
      },
      noisy: {
        command: process.execPath,
        args: [fixture, 'garbage', path.join(b.dir, 'noisy.log')],
      },
      // Too broken to load: reported under its own name.
      broken: { type: 'http' },
      crash: {
        command: process.execPath,
        args: ['-e', 'process.stderr.write("\\u001b]0;pwned\\u0007 no key\\n"); process.exit(3)'],
      },
    },
  });
}

describe('mcpkit doctor', () => {
  it('a terminal sees each finding of a mixed config with its next step, escapes what servers send, and the exit is 1', async () => {
    box = sandbox('mcpkit-cli-doctor-');
    const config = await mixedConfig(box);
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, '--timeout', '5000', 'doctor']);
    const status = await waitFor(() => tmux!.exitStatus(), 'doctor to exit');
    const screen = tmux.screen();
    expect(status).toBe(1);
    // Working: its command, the negotiated version and era, a ping.
    expect(screen).toMatch(/^good \(stdio, dynamic: .*servers\.json\)$/m);
    expect(screen).toMatch(/✔ connect +2025-11-25, fixture 1\.0\.0, \d+ ms/);
    expect(screen).toMatch(/✔ ping +\d+\.\d ms/);
    // Missing command: never spawned, with what to do.
    expect(screen).toMatch(/✖ command +"mcpkit-doctor-no-such-command" is not on PATH/);
    expect(screen).toMatch(/next: install it, or set "command" of "nocmd" to its full path in/);
    // Unreachable URL: refused, named.
    expect(screen).toMatch(/✖ url +http:\/\/127\.0\.0\.1:\d+\/mcp is not reachable: ECONNREFUSED/);
    // Pending approval: reported, never contacted.
    expect(screen).toMatch(/! status +pending-approval: not contacted/);
    expect(screen).toMatch(/next: .*run "mcpkit approve repo"/);
    expect(existsSync(path.join(box.dir, 'repo-started')), 'an unapproved server ran').toBe(false);
    // Missing variable, with where to set it.
    expect(screen).toMatch(
      /✖ variable +\$\{MCPKIT_DOCTOR_UNSET_KEY\} is not set and has no default/,
    );
    expect(screen).toMatch(/next: set MCPKIT_DOCTOR_UNSET_KEY in the environment/);
    // Garbage on stdout: a warning with its next step.
    expect(screen).toMatch(/! warning +.*this is not JSON/);
    // A crash: the cause, the next step, its stderr with the escape shown, not acted on.
    expect(screen).toMatch(/✖ connect +server "crash": .*exited with code 3/);
    expect(screen).toContain('\\x1b]0;pwned\\x07 no key');
    expect(screen).toMatch(/need attention/);
  });

  it('--json gives every server its findings; a config that is all well exits 0', async () => {
    box = sandbox('mcpkit-cli-doctor-json-');
    const config = await mixedConfig(box);
    const unparsable = box.file('unparsable.json', '{"mcpServers": {');
    // A remote server that wants a sign-in: reachable, every request answered 401.
    const locked = await recordingServer((_req, res) =>
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end(),
    );
    servers.push(locked);
    const lockedConfig = box.file('locked.json', {
      mcpServers: { locked: { type: 'http', url: `${locked.url}/mcp` } },
    });
    const run = await runCli(
      ['-c', config, '-c', unparsable, '-c', lockedConfig, '--timeout', '5000', '--json', 'doctor'],
      {
        env: box.env,
        cwd: box.cwd,
      },
    );
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as {
      ok: boolean;
      config: Array<{ level: string; message: string }>;
      servers: Array<{
        name: string;
        status: string;
        findings: Array<{ check: string; level: string; next?: string }>;
      }>;
    };
    expect(report.ok).toBe(false);
    const by = Object.fromEntries(report.servers.map((s) => [s.name, s]));
    expect(Object.keys(by).sort()).toEqual([
      'broken',
      'crash',
      'gone',
      'good',
      'locked',
      'nocmd',
      'noisy',
      'novar',
      'repo',
    ]);
    expect(by.broken).toMatchObject({
      status: 'invalid',
      findings: [{ check: 'config', level: 'error' }],
    });
    expect(report.config).toEqual([
      expect.objectContaining({
        level: 'error',
        message: expect.stringContaining('unparsable.json'),
      }),
    ]);
    const levels = (name: string) =>
      Object.fromEntries(by[name]!.findings.map((f) => [f.check, f.level]));
    expect(levels('good')).toMatchObject({ command: 'ok', connect: 'ok', ping: 'ok' });
    expect(by.good!.status).toBe('connected');
    expect(levels('nocmd')).toEqual({ command: 'error' });
    expect(levels('gone')).toMatchObject({ url: 'error' });
    expect(levels('repo')).toEqual({ status: 'warning' });
    expect(levels('novar')).toMatchObject({ variable: 'error', connect: 'ok' });
    expect(levels('noisy')).toMatchObject({ warning: 'warning', connect: 'ok' });
    expect(levels('crash')).toMatchObject({ connect: 'error', stderr: 'info' });
    expect(levels('locked')).toMatchObject({ url: 'ok', auth: 'info', connect: 'error' });
    expect(by.locked!.status).toBe('needs-auth');
    expect(by.locked!.findings.find((f) => f.check === 'connect')?.next).toBe(
      'run "mcpkit login locked"',
    );
    // The probe sent none of the entry's headers and the connect no token: there is none.
    expect(locked.requests.map((r) => r.method)).toContain('HEAD');
    expect(locked.requests.every((r) => !r.headers.authorization)).toBe(true);
    for (const s of report.servers)
      for (const f of s.findings)
        if (f.level === 'error' || f.level === 'warning')
          expect(f.next, `${s.name} ${f.check}`).toBeTruthy();

    const only = await runCli(['-c', config, '--json', 'doctor', 'good'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(only.code).toBe(0);
    expect((JSON.parse(only.stdout) as { ok: boolean; servers: unknown[] }).servers).toHaveLength(
      1,
    );
  });

  it('twelve servers ping without MaxListenersExceededWarning (the pings shared one signal, a listener each)', async () => {
    box = sandbox('mcpkit-cli-doctor-many-');
    const mcpServers = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [
        `s${i}`,
        { command: process.execPath, args: [fixture, 'ok', path.join(box!.dir, `s${i}.log`)] },
      ]),
    );
    const config = box.file('many.json', { mcpServers });
    const r = await runCli(['-c', config, 'doctor'], { env: box.env, cwd: box.cwd });
    expect(r.stdout.match(/✔ ping/g) ?? [], r.stdout).toHaveLength(12);
    expect(r.stderr).not.toContain('MaxListenersExceededWarning');
    expect(r.stderr).not.toContain('listeners added');
  });
});

import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
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
import { runShellPiped } from './support/shell-piped.js';

/**
 * `mcpkit shell` (issue #12 item 4) through a real pseudo-terminal (tmux): Tab completion,
 * a call, a server's crash and reconnection shown as they happen, Ctrl-C cancelling the
 * running call and not the shell, history kept 0600, Ctrl-D leaving no process.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const tiny = path.join(serversDir, 'cli-tiny-server.mjs');
const growing = fileURLToPath(new URL('./servers/shell-list-changed-server.mjs', import.meta.url));

let box: Sandbox | undefined;
let tmux: Tmux | undefined;
afterEach(async (context) => {
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen());
  tmux?.close();
  tmux = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

/** The screen once `pattern` shows on it. */
function screenWith(pattern: RegExp, what: string): Promise<string> {
  return waitFor(() => {
    const screen = tmux!.screen();
    return pattern.test(screen) ? screen : undefined;
  }, what);
}

/** The exit status (waitFor takes 0 for "not yet", so it is wrapped). */
async function exitStatus(what: string): Promise<number> {
  const { status } = await waitFor(() => {
    const status = tmux!.exitStatus();
    return status === undefined ? undefined : { status };
  }, what);
  return status;
}

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

describe('mcpkit shell', () => {
  it('completes a tool name, calls it, shows a crash and the reconnection as they happen, cancels a hanging call with Ctrl-C, keeps history 0600, and Ctrl-D leaves no process', async () => {
    box = sandbox('mcpkit-cli-shell-');
    const hangLog = path.join(box.dir, 'hang.log');
    const config = box.file('servers.json', {
      mcpServers: {
        good: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'good.log')] },
        hang: { command: process.execPath, args: [tiny, 'hang-call', hangLog] },
      },
    });
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, 'shell']);
    await screenWith(/\[good\] connected · 2025-11-25 · \d+ ms/, 'good to connect');
    await screenWith(/\[hang\] connected/, 'hang to connect');

    // Tab completes the tool's name from the server's list (sent apart: a pasted Tab is text).
    tmux.sendKeys('-l', 'call good ec');
    tmux.sendKeys('Tab');
    await screenWith(/mcpkit> call good echo $/m, 'the completed tool name');
    tmux.sendKeys('-l', '{"said": "hello shell"}');
    tmux.sendKeys('Enter');
    await screenWith(/^\{"said":"hello shell"\}$/m, 'the call result');

    // The server's process dies while a line is half typed: the crash and the reconnection
    // are printed above it as they happen, and the line stays as typed.
    tmux.sendKeys('-l', 'serv');
    await screenWith(/mcpkit> serv$/m, 'the half-typed line');
    const [server] = processesWith(fixture).filter((p) => p.cmdline.includes(box!.dir));
    expect(server, 'the fixture server process').toBeDefined();
    process.kill(server!.pid, 'SIGKILL');
    await screenWith(/\[good\] reconnecting \(1\/5\)/, 'the crash to be shown');
    const back = await screenWith(
      /\[good\] reconnecting[^\n]*\n(.*\n)*\[good\] connected/,
      'the reconnection to be shown',
    );
    expect(count(back, /\[good\] connected/g)).toBe(2);
    // The lists the crash emptied and the reconnection filled again are the same: no line.
    expect(back).not.toMatch(/tools changed/);
    // The last two lines: the reconnection, then the prompt with the line as it was typed.
    await waitFor(() => {
      const lines = tmux!.screen().trimEnd().split('\n');
      return lines.at(-1) === 'mcpkit> serv' && /^\[good\] connected/.test(lines.at(-2) ?? '');
    }, 'the half-typed line drawn again under the reconnection');
    tmux.sendKeys('-l', 'ers');
    tmux.sendKeys('Enter');
    await screenWith(/^good +connected +stdio/m, 'servers after the reconnection');

    // Ctrl-C cancels the running call (the server is told), the shell stays.
    tmux.sendKeys('-l', 'call hang echo');
    tmux.sendKeys('Enter');
    await waitFor(
      () => readFileSync(hangLog, 'utf8').includes('"tools/call"'),
      'the call to reach the server',
    );
    tmux.sendKeys('C-c');
    await screenWith(/^cancelled$/m, 'the call to be cancelled');
    await waitFor(
      () => readFileSync(hangLog, 'utf8').includes('notifications/cancelled'),
      'the server to be told',
    );
    tmux.sendKeys('-l', 'servers');
    tmux.sendKeys('Enter');
    await screenWith(/^hang +connected +stdio/m, 'the shell to answer after Ctrl-C');

    // History: in the state directory, the user's only.
    const historyFile = path.join(box.env.XDG_STATE_HOME!, 'mcpkit', 'shell_history');
    const history = readFileSync(historyFile, 'utf8');
    expect(history).toContain('call good echo {"said": "hello shell"}\n');
    expect(history).toContain('servers\n');
    expect(statSync(historyFile).mode & 0o777).toBe(0o600);

    // Ctrl-D closes every server and exits 0.
    tmux.sendKeys('C-d');
    expect(await exitStatus('the shell to exit')).toBe(0);
    expect(processesWith(fixture).filter((p) => p.cmdline.includes(box!.dir))).toEqual([]);
    expect(processesWith(tiny).filter((p) => p.cmdline.includes(box!.dir))).toEqual([]);
  });

  it('starts with the history of an earlier session (the up arrow brings it back)', async () => {
    box = sandbox('mcpkit-cli-shell-history-');
    const config = box.file('servers.json', {
      mcpServers: {
        good: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'good.log')] },
      },
    });
    const first = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux = first;
    tmux.start([process.execPath, bin, '-c', config, 'shell']);
    await screenWith(/\[good\] connected/, 'good to connect');
    tmux.sendKeys('-l', 'tools good');
    tmux.sendKeys('Enter');
    await screenWith(/^ {2}echo/m, 'the tools');
    tmux.sendKeys('-l', 'exit');
    tmux.sendKeys('Enter');
    expect(await exitStatus('the shell to exit')).toBe(0);
    tmux.close();

    // The harness's status file is per sandbox: the first session's must not answer for the second.
    rmSync(path.join(box.dir, 'tmux-exit-status'));
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, 'shell']);
    await screenWith(/\[good\] connected/, 'good to connect again');
    tmux.sendKeys('Up');
    await screenWith(/mcpkit> tools good$/m, 'the earlier line');
    tmux.sendKeys('C-u', 'C-d');
    expect(await exitStatus('the shell to exit')).toBe(0);
  });

  it('prints a list_changed as it happens and completes the new tool; SIGTERM closes every server and exits 143', async () => {
    box = sandbox('mcpkit-cli-shell-changes-');
    const config = box.file('servers.json', {
      mcpServers: {
        grow: { command: process.execPath, args: [growing, path.join(box.dir, 'grow.log')] },
      },
    });
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, 'shell']);
    await screenWith(/\[grow\] connected/, 'grow to connect');
    tmux.sendKeys('-l', 'call grow grow');
    tmux.sendKeys('Enter');
    await screenWith(/^\[grow\] tools changed: \+grown-1$/m, 'the list change');
    // The new tool is offered by Tab at once.
    tmux.sendKeys('-l', 'call grow grown');
    tmux.sendKeys('Tab');
    await screenWith(/mcpkit> call grow grown-1 $/m, 'the new tool completed');
    tmux.sendKeys('Enter');
    await screenWith(/^called grown-1$/m, 'the new tool called');
    // Ctrl-C with nothing running drops the typed line (cursor mid-line too), as a shell does.
    tmux.sendKeys('-l', 'half typed');
    tmux.sendKeys('Left', 'Left');
    tmux.sendKeys('C-c');
    // (The terminal shows ^C where the cursor was, over the end of the line, as bash does.)
    await screenWith(/^mcpkit> half typ\S*\^C\nmcpkit> $/m, 'the line dropped');
    tmux.sendKeys('-l', 'tools grow');
    tmux.sendKeys('Enter');
    await screenWith(/^ {2}grown-1/m, 'the shell still answering');

    // The CLI itself, not the bash that runs it in the pane (whose command line names it too).
    const [cli] = processesWith(bin).filter(
      (p) => p.cmdline.startsWith(`${process.execPath} ${bin}`) && p.cmdline.includes(config),
    );
    expect(cli, 'the CLI process').toBeDefined();
    process.kill(cli!.pid, 'SIGTERM');
    expect(await exitStatus('the shell to exit')).toBe(143);
    expect(processesWith(growing).filter((p) => p.cmdline.includes(box!.dir))).toEqual([]);
  });

  it('from a pipe: runs each line in turn after the servers have connected, then exits 0 with no process and no history', async () => {
    box = sandbox('mcpkit-cli-shell-pipe-');
    const config = box.file('servers.json', {
      mcpServers: {
        good: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'good.log')] },
      },
    });
    // Written and ended at once: the lines must still run, the first after the connect.
    const { code, stdout, stderr } = await runShellPiped(
      ['-c', config, 'shell'],
      'tools\ncall good echo {"from": "a pipe"}\ncall good nope\nservers\n',
      {
        env: box.env,
        cwd: box.cwd,
      },
    );
    expect(code).toBe(0);
    // The fixture's tool count is its own business; the list and the echo tool are ours.
    expect(stdout).toMatch(/^good \(\d+ tools\)$/m);
    expect(stdout).toMatch(/^ {2}echo\(\)$/m);
    expect(stdout).toMatch(/^\{"from":"a pipe"\}$/m);
    expect(stderr).toMatch(/server "good" has no tool "nope" .*"tools good" lists its tools/);
    expect(stdout).toMatch(/^good +connected +stdio/m);
    expect(stdout).not.toContain('mcpkit>');
    expect(existsSync(path.join(box.env.XDG_STATE_HOME!, 'mcpkit', 'shell_history'))).toBe(false);
    expect(processesWith(fixture).filter((p) => p.cmdline.includes(box!.dir))).toEqual([]);
  });

  it("enable and disable write the entry's file and apply to the session at once", async () => {
    box = sandbox('mcpkit-cli-shell-enable-');
    const added = await runCli(
      [
        'add',
        '--scope',
        'user',
        'good',
        '--',
        process.execPath,
        fixture,
        'ok',
        path.join(box.dir, 'good.log'),
      ],
      { env: box.env, cwd: box.cwd },
    );
    expect(added.code).toBe(0);
    const { code, stdout, stderr } = await runShellPiped(
      ['shell'],
      'disable good\nservers\ncall good echo\nenable good\ncall good echo {"back": true}\n',
      { env: box.env, cwd: box.cwd },
    );
    expect(code).toBe(0);
    const userFile = path.join(box.env.XDG_CONFIG_HOME!, 'mcpkit', 'mcp.json');
    expect(stdout).toContain(
      `disabled server "good" in the user scope (every folder) in ${userFile}`,
    );
    expect(stdout).toMatch(/^good +not started: server "good" is disabled in /m);
    expect(stderr).toContain('server "good" is not started (disabled); "servers" says why');
    expect(stdout).toContain(
      `enabled server "good" in the user scope (every folder) in ${userFile}`,
    );
    expect(stdout).toMatch(/^\{"back":true\}$/m);
    expect(JSON.parse(readFileSync(userFile, 'utf8')).mcpServers.good.disabled).toBeUndefined();
  });

  it('lines piped in while the output is a terminal run as a script: the end of input does not cancel them', async () => {
    box = sandbox('mcpkit-cli-shell-pipe-tty-');
    const config = box.file('servers.json', {
      mcpServers: {
        good: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'good.log')] },
      },
    });
    const script = box.file('commands.txt', 'call good echo {"piped": "in"}\n');
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([
      'sh',
      '-c',
      `"$0" "$1" -c "$2" shell < "$3"`,
      process.execPath,
      bin,
      config,
      script,
    ]);
    expect(await exitStatus('the shell to exit')).toBe(0);
    const screen = tmux.screen();
    expect(screen).toMatch(/^\{"piped":"in"\}$/m);
    expect(screen).not.toContain('mcpkit>');
  });
});

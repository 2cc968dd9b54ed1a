import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
import { everythingEntry } from '../support/everything.js';
import { runShellPiped } from './support/shell-piped.js';

/**
 * Issue #28 item 7: what the CLI prints. Structured content once on a terminal, the
 * `servers` table (a pending server said once, the NAME column aligned, no "(legacy)",
 * nothing configured said in words), `list`'s header, plurals, `get`'s decision and era,
 * prompts taking key=value, and the small messages (an unknown option, remove and add in
 * the wrong scope, a missing import file, the SIGINT count of a gateway's backends).
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const tiny = path.join(serversDir, 'cli-tiny-server.mjs');

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

const run = (...args: string[]) => runCli(args, { env: box!.env, cwd: box!.cwd });

const exitStatus = (what: string) =>
  waitFor(() => {
    const status = tmux!.exitStatus();
    return status === undefined ? undefined : { status };
  }, what).then((s) => s.status);

const count = (text: string, needle: string) => text.split(needle).length - 1;

function everythingConfig(): string {
  return box!.file('servers.json', {
    mcpServers: { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
  });
}

describe('what the CLI prints', () => {
  it('structured content that its text already is: shown once on a terminal; a pipe keeps both', async () => {
    box = sandbox('mcpkit-cli-output-');
    const args = ['--strict-config', '-c', everythingConfig()];
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([
      process.execPath,
      bin,
      ...args,
      'call',
      'everything',
      'get-structured-content',
      'location=Chicago',
    ]);
    expect(await exitStatus('the call')).toBe(0);
    const screen = tmux.screen();
    expect(count(screen, 'Light rain / drizzle')).toBe(1);
    expect(screen).not.toContain('structured content:');
    // Into a pipe nothing a server sent is left out (the byte-exact form is --json).
    const piped = await run(
      ...args,
      'call',
      'everything',
      'get-structured-content',
      'location=Chicago',
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(count(piped.stdout, 'Light rain / drizzle')).toBe(2);
    expect(piped.stdout).toContain('structured content:');
  });

  it('servers: a pending server said once on a terminal (on its row), the NAME column aligned, no "(legacy)"', async () => {
    box = sandbox('mcpkit-cli-output-');
    const config = box.file('servers.json', {
      mcpServers: {
        a: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'a.log')] },
      },
    });
    writeFileSync(
      path.join(box.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { 'repo-server-long': { command: 'mcpkit-never-run' } } }),
    );
    const r = await run('-c', config, 'servers');
    expect(r.code, r.stderr).toBe(0);
    // stderr is the log of a pipe: said there too (once), and once in the table.
    expect(count(r.stderr, 'waits for approval')).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    const header = lines.find((l) => l.startsWith('NAME'))!;
    const row = lines.find((l) => l.startsWith('a '))!;
    const pending = lines.find((l) => l.startsWith('repo-server-long'))!;
    expect(count(r.stdout, 'waits for approval')).toBe(1);
    expect(row.indexOf('connected')).toBe(header.indexOf('STATE'));
    expect(pending.indexOf('not started')).toBe(header.indexOf('STATE'));
    expect(row).toContain('2025-11-25');
    expect(r.stdout).not.toContain('(legacy)');

    // On a terminal: the live progress does not say it a second (and third) time.
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '-c', config, 'servers']);
    expect(await exitStatus('servers')).toBe(0);
    expect(count(tmux.screen(), 'waits for approval')).toBe(1);
  });

  it('nothing configured: servers and list say so and where they looked, no empty header', async () => {
    box = sandbox('mcpkit-cli-output-');
    for (const command of ['servers', 'list']) {
      const r = await run(command);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('NAME');
      expect(r.stdout).toContain(`no MCP servers configured for ${box.cwd}; read:`);
      expect(r.stdout).toContain(`${path.join(box.home, '.config/mcpkit/mcp.json')} (not found)`);
      expect(r.stdout).toContain(path.join(box.cwd, '.mcp.json'));
      expect(r.stdout).toMatch(/local\s+\S+projects\.json \(nothing for /);
    }
  });

  it('list has a header row; get says "decision: enabled" once and the era in words; one tool is "1 tool"', async () => {
    box = sandbox('mcpkit-cli-output-');
    const add = await run(
      'add',
      'tiny',
      process.execPath,
      tiny,
      'hang-call',
      path.join(box.dir, 't.log'),
    );
    expect(add.code, add.stderr).toBe(0);
    const list = await run('list');
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+SCOPE\s+STATUS\s+FILE$/);
    expect(list.stdout).toMatch(/^tiny\s+local\s+enabled\s+\S+projects\.json/m);
    const get = await run('get', 'tiny');
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain('decision: enabled\n');
    expect(get.stdout).not.toContain('(legacy)');
    expect(get.stdout).toMatch(
      /^era: +a 2024–2025 revision \(connects with an initialize handshake/m,
    );
    const tools = await run('tools');
    expect(tools.stdout).toContain('tiny (1 tool)\n');
    // And the live progress on a terminal says "1 tool" too (it said "1 tools").
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, 'tools']);
    expect(await exitStatus('tools')).toBe(0);
    expect(tmux.screen()).toMatch(/✔ tiny {2}connected · 1 tool · \d+ ms/);
  });

  it('prompt takes key=value, as call does (one-shot and in the shell)', async () => {
    box = sandbox('mcpkit-cli-output-');
    const args = ['--strict-config', '-c', everythingConfig()];
    const r = await run(...args, 'prompt', 'everything', 'args-prompt', 'city=Paris');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Paris');
    const shell = await runShellPiped(
      [...args, 'shell'],
      'prompt everything args-prompt city=Lyon state=Rhone\n',
      { env: box.env, cwd: box.cwd },
    );
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout).toContain('Lyon, Rhone');
  });

  it('the small messages: an unknown option, remove and add in the wrong scope, a missing import file', async () => {
    box = sandbox('mcpkit-cli-output-');
    const unknown = await run('-y', 'list');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no flag -y');
    expect(count(unknown.stderr, '"') % 2).toBe(0);
    expect(unknown.stderr).not.toContain("'");

    expect((await run('add', '--scope', 'user', 'gh', 'node', 'gh.js')).code).toBe(0);
    const removed = await run('remove', 'gh');
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain('no server named "gh" in the local scope');
    expect(removed.stderr).toContain(
      `it is in the user scope (${path.join(box.home, '.config/mcpkit/mcp.json')}): run "mcpkit remove --scope user gh"`,
    );
    const again = await run('add', '--scope', 'user', 'gh', 'node', 'gh.js');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('remove it first with "mcpkit remove --scope user gh"');
    expect(again.stderr).not.toContain('update it');

    const missing = path.join(box.dir, 'nothere.json');
    const imported = await run('import', '--from', 'vscode', missing);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toBe(`mcpkit: ${missing} does not exist\n`);
  });

  it('SIGINT on serve counts its backends: "closing 3 connections"', async () => {
    box = sandbox('mcpkit-cli-output-');
    const logs = ['a', 'b', 'c'].map((n) => path.join(box!.dir, `${n}.log`));
    const config = box.file('servers.json', {
      mcpServers: Object.fromEntries(
        ['a', 'b', 'c'].map((n, i) => [
          n,
          { command: process.execPath, args: [fixture, 'ok', logs[i]!] },
        ]),
      ),
    });
    const child = spawn(process.execPath, [bin, '--strict-config', '-c', config, 'serve'], {
      env: box.env,
      cwd: box.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    await waitFor(
      () => logs.every((l) => existsSync(l) && readFileSync(l, 'utf8').includes('answered')),
      'the three backends to connect',
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('SIGINT: closing 3 connections');
    child.stdin.end();
  });
});

import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
 * URL elicitation (-32042, issue #12): a tool call answered "the user must open this page
 * first". The CLI prints the page (escaped), opens the browser unless --no-browser, and on
 * a terminal sends the call once more when the user says they are done. The browser is a
 * fake `xdg-open` put first on PATH (the opener @mcpkit/auth runs on Linux), which only
 * records the arguments it was given.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const PAGE = 'https://auth.example/connect?session=s-1&next=%2Fdone';

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

function setup() {
  box = sandbox('mcpkit-cli-url-elicitation-');
  const fakeBin = path.join(box.dir, 'fake-browser');
  mkdirSync(fakeBin);
  const opened = path.join(box.dir, 'opened.log');
  const opener = box.file(
    'fake-browser/xdg-open',
    `#!/bin/sh\nprintf 'argc=%s\\n' "$#" >> '${opened}'\nfor a in "$@"; do printf '%s\\n' "$a" >> '${opened}'; done\n`,
  );
  chmodSync(opener, 0o755);
  const log = path.join(box.dir, 'server.log');
  const config = box.file('servers.json', {
    mcpServers: { old: { command: process.execPath, args: [fixture, 'ok', log, PAGE] } },
  });
  const env = { ...box.env, PATH: `${fakeBin}:${box.env.PATH}` };
  const calls = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l === 'call connect').length
      : 0;
  const openedArgs = () => (existsSync(opened) ? readFileSync(opened, 'utf8') : undefined);
  return { args: ['--strict-config', '-c', config], env, calls, openedArgs };
}

const screenWith = (text: string) => () => {
  const screen = tmux!.screen();
  return screen.includes(text) ? screen : undefined;
};

describe('a call that needs a page opened first (URL elicitation, -32042)', () => {
  it('on a terminal: the page is printed escaped and opened (one argument), and the call is sent again once the user is done', async () => {
    const { args, env, calls, openedArgs } = setup();
    tmux = new Tmux(box!, env);
    tmux.start([process.execPath, bin, ...args, 'call', 'old', 'connect']);
    // The server's message carries an OSC sequence: shown escaped, not acted on.
    await waitFor(
      screenWith('old asks you to open a page: Sign in to Example\\x1b]0;owned\\x07 first'),
      'the page',
    );
    await waitFor(screenWith('Finished in the browser?'), 'the question');
    expect(tmux.screen()).toContain(PAGE);
    expect(await waitFor(openedArgs, 'the browser')).toBe(`argc=1\n${PAGE}\n`);
    expect(calls()).toBe(1);
    tmux.sendKeys('Enter');
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(0);
    expect(tmux.screen()).toContain('connected');
    expect(calls()).toBe(2);
  });

  it('--no-browser: the page is printed, nothing is opened, and the call is still sent again', async () => {
    const { args, env, calls, openedArgs } = setup();
    tmux = new Tmux(box!, env);
    tmux.start([process.execPath, bin, ...args, '--no-browser', 'call', 'old', 'connect']);
    await waitFor(screenWith('Finished in the browser?'), 'the question');
    expect(tmux.screen()).toContain(PAGE);
    tmux.sendKeys('Enter');
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(0);
    expect(tmux.screen()).toContain('connected');
    expect(calls()).toBe(2);
    expect(openedArgs()).toBeUndefined();
  });

  it('without a terminal: the page is printed and opened, and the call fails saying to finish it and run again', async () => {
    const { args, env, calls, openedArgs } = setup();
    const r = await runCli([...args, 'call', 'old', 'connect'], { env, cwd: box!.cwd });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'old asks you to open a page: Sign in to Example\\x1b]0;owned\\x07 first',
    );
    expect(r.stderr).toContain(PAGE);
    expect(r.stderr).toContain(
      'server "old" needs the page above finished first; finish it in the browser, then run the command again',
    );
    expect(r.stderr).not.toContain('\x1b');
    expect(calls()).toBe(1);
    expect(await waitFor(openedArgs, 'the browser')).toBe(`argc=1\n${PAGE}\n`);
  });
});

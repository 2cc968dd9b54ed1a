import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  processesWith,
  type Sandbox,
  sandbox,
  Tmux,
  waitFor,
} from '../hostile/cli-harness.js';
import { runShellPiped } from './support/shell-piped.js';

/**
 * Issue #28 item 6: a form a server asks in `mcpkit shell` is asked field by field on the
 * terminal (as one-shot `call` does), the shell's line editor paused meanwhile and working
 * after; Esc answers `cancel`. From a pipe it is declined with words that name no flag.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

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

function setup(): string[] {
  box = sandbox('mcpkit-cli-shell-forms-');
  const config = box.file('servers.json', {
    mcpServers: {
      old: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'old.log')] },
    },
  });
  return ['--strict-config', '-c', config];
}

const screenWith = (pattern: string | RegExp, what: string) =>
  waitFor(() => {
    const screen = tmux!.screen();
    return (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen))
      ? screen
      : undefined;
  }, what);

const exitStatus = (what: string) =>
  waitFor(() => {
    const status = tmux!.exitStatus();
    return status === undefined ? undefined : { status };
  }, what).then((s) => s.status);

describe('forms in the shell', () => {
  it('asks field by field on the terminal, then the prompt works again; Esc answers cancel', async () => {
    const args = setup();
    tmux = new Tmux(box!, { ...box!.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, ...args, 'shell']);
    await screenWith('[old] connected', 'the server to connect');
    tmux.sendKeys('-l', 'call old ask {}');
    tmux.sendKeys('Enter');
    await screenWith('old asks: Who are you?', 'the question');
    await screenWith('Name', 'the first field');
    tmux.sendKeys('-l', 'Ada');
    tmux.sendKeys('Enter');
    await screenWith('Count', 'the second field');
    tmux.sendKeys('Enter'); // the default, 2
    await screenWith('Color', 'the third field');
    tmux.sendKeys('Down', 'Enter'); // green
    await screenWith(
      'answer: {"action":"accept","content":{"name":"Ada","count":2,"color":"green"}}',
      'the answer the server got',
    );
    const answered = tmux.screen();
    expect(answered).not.toContain('declined');
    expect(answered).not.toContain('--elicit');

    // The line editor reads keys again: a typed command runs.
    tmux.sendKeys('-l', 'call old echo {"back":1}');
    tmux.sendKeys('Enter');
    await screenWith(/^\{"back":1\}$/m, 'the next command to run');

    // Esc cancels the question: the server is answered "cancel", the shell goes on.
    tmux.sendKeys('-l', 'call old ask {}');
    tmux.sendKeys('Enter');
    await waitFor(() => {
      const screen = tmux!.screen();
      return screen.split('Name').length > 2 ? screen : undefined;
    }, 'the first field, asked again');
    tmux.sendKeys('Escape');
    await screenWith('answer: {"action":"cancel"}', 'the cancel the server got');
    await screenWith(
      'mcpkit: you cancelled the question of server "old"; it was told so',
      'the shell to say so',
    );
    tmux.sendKeys('-l', 'call old echo {"again":2}');
    tmux.sendKeys('Enter');
    await screenWith(/^\{"again":2\}$/m, 'a command after the cancel');
    tmux.sendKeys('C-d');
    expect(await exitStatus('the shell to exit')).toBe(0);
  });

  it('from a pipe the form is declined with shell words, no flag', async () => {
    const args = setup();
    const r = await runShellPiped([...args, 'shell'], 'call old ask {}\n', {
      env: box!.env,
      cwd: box!.cwd,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answer: {"action":"decline"}');
    expect(r.stderr).toContain('server "old" asks: Who are you? — declined');
    expect(r.stderr).toContain('run "mcpkit shell" on a terminal to answer it');
    expect(r.stderr).not.toContain('--elicit');
  });
});

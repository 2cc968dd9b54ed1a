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
 * A tool that asks the user something (issue #12): on a terminal each field is asked in
 * turn; without one the question is declined with how to answer it (`--elicit`).
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const modern = fileURLToPath(new URL('../fixtures/modern-server.mjs', import.meta.url));

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
  box = sandbox('mcpkit-cli-interaction-');
  const config = box.file('servers.json', {
    mcpServers: {
      old: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'old.log')] },
      modern: { command: process.execPath, args: [modern, 'stdio'] },
    },
  });
  return ['--strict-config', '-c', config];
}

const exitStatus = () => waitFor(() => tmux!.exitStatus(), 'the CLI to exit');

const screenWith = (text: string | RegExp) => () => {
  const screen = tmux!.screen();
  return (typeof text === 'string' ? screen.includes(text) : text.test(screen))
    ? screen
    : undefined;
};

describe('a server asks the user (elicitation)', () => {
  it('a 2025 form (string, integer with a default, enum) answered by typing in a terminal', async () => {
    const args = setup();
    tmux = new Tmux(box!, box!.env);
    tmux.start([process.execPath, bin, ...args, 'call', 'old', 'ask', '{}']);
    await waitFor(screenWith('old asks: Who are you?'), 'the question');
    await waitFor(screenWith('Name'), 'the first field');
    tmux.sendKeys('Ada', 'Enter');
    await waitFor(screenWith('Count'), 'the second field');
    tmux.sendKeys('Enter'); // the default, 2
    await waitFor(screenWith('Color'), 'the third field');
    tmux.sendKeys('Down', 'Enter'); // green
    expect(await exitStatus()).toBe(0);
    expect(tmux.screen()).toContain(
      'answer: {"action":"accept","content":{"name":"Ada","count":2,"color":"green"}}',
    );
  });

  it('Esc on a form says the server was told (not "nothing was sent": it got action=cancel) and exits 1', async () => {
    const args = setup();
    tmux = new Tmux(box!, box!.env);
    tmux.start([process.execPath, bin, ...args, 'call', 'old', 'ask', '{}']);
    await waitFor(screenWith('Name'), 'the first field');
    tmux.sendKeys('Escape');
    expect(await exitStatus()).toBe(1);
    const screen = tmux.screen();
    expect(screen).toContain('answer: {"action":"cancel"}');
    expect(screen).toContain('cancelled: old is told you cancelled its question');
    expect(screen).toContain('mcpkit: you cancelled the question of server "old"; it was told so');
    expect(screen).not.toContain('nothing was sent');
  });

  it('a 2026-07-28 input_required confirmation answered with "y" in a terminal', async () => {
    const args = setup();
    tmux = new Tmux(box!, box!.env);
    tmux.start([process.execPath, bin, ...args, 'call', 'modern', 'deploy', '{"env":"prod"}']);
    await waitFor(screenWith('modern asks: Deploy to prod?'), 'the question');
    tmux.sendKeys('y');
    expect(await exitStatus()).toBe(0);
    expect(tmux.screen()).toContain('deployed to prod');
  });

  it('without a terminal the question is declined with how to answer it; --elicit answers it', async () => {
    const args = setup();
    const run = (...rest: string[]) => runCli([...args, ...rest], { env: box!.env, cwd: box!.cwd });
    const declined = await run('call', 'modern', 'deploy', '{"env":"prod"}');
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain(
      `server "modern" asks: Deploy to prod? — declined: there is no terminal to ask on; answer it with --elicit '<json>' (fields: confirm)`,
    );
    const answered = await run(
      '--elicit',
      '{"confirm":true}',
      'call',
      'modern',
      'deploy',
      '{"env":"prod"}',
    );
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain('deployed to prod');
    const old = await run('call', 'old', 'ask', '{}');
    expect(old.stderr).toContain('server "old" asks: Who are you?');
    expect(old.stdout).toContain('answer: {"action":"decline"}');
  });
});

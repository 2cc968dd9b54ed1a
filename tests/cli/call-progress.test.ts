import { readFileSync } from 'node:fs';
import path from 'node:path';
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
import { everythingEntry } from '../support/everything.js';

/**
 * Issue #28 item 5: a long call shows the server's progress notifications on a terminal,
 * one line redrawn in place and erased when the result comes, in `call` and in `shell`;
 * into a pipe nothing is drawn and no progress token is sent (stdout is the result alone).
 * Against the real server-everything and its trigger-long-running-operation tool.
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

function setup(): string[] {
  box = sandbox('mcpkit-cli-call-progress-');
  const config = box.file('servers.json', {
    mcpServers: { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
  });
  return ['--strict-config', '-c', config];
}

const screenWith = (pattern: RegExp, what: string) =>
  waitFor(() => {
    const screen = tmux!.screen();
    return pattern.test(screen) ? screen : undefined;
  }, what);

const exitStatus = (what: string) =>
  waitFor(() => {
    const status = tmux!.exitStatus();
    return status === undefined ? undefined : { status };
  }, what).then((s) => s.status);

const LONG = ['trigger-long-running-operation', 'duration=2', 'steps=4'];
const RESULT = 'Long running operation completed. Duration: 2 seconds, Steps: 4.';
// The progress line: server and tool, progress/total, elapsed seconds.
const PROGRESS = /… everything trigger-long-running-operation: [1-4]\/4 · \d+ s/;
const ANY_PROGRESS = /trigger-long-running-operation: \d\/4/;

describe('progress of a long call', () => {
  it('call on a terminal: the progress line is drawn while the call runs and gone when the result comes', async () => {
    const args = setup();
    tmux = new Tmux(box!, { ...box!.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, ...args, 'call', 'everything', ...LONG]);
    const mid = await screenWith(PROGRESS, 'the progress line');
    expect(mid).not.toContain(RESULT);
    expect(await exitStatus('the CLI to exit')).toBe(0);
    const final = tmux.screen();
    expect(final).toContain(RESULT);
    expect(final).not.toMatch(ANY_PROGRESS);
  });

  it('shell on a terminal: the progress line is drawn during a call and erased before its result', async () => {
    const args = setup();
    tmux = new Tmux(box!, { ...box!.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, ...args, 'shell']);
    await screenWith(/\[everything\] connected/, 'the server to connect');
    tmux.sendKeys('-l', `call everything ${LONG.join(' ')}`);
    tmux.sendKeys('Enter');
    await screenWith(PROGRESS, 'the progress line');
    const after = await screenWith(
      new RegExp(`${RESULT.replaceAll('.', '\\.')}\\n+mcpkit> `),
      'the result and the prompt',
    );
    expect(after).not.toMatch(ANY_PROGRESS);
    tmux.sendKeys('C-d');
    expect(await exitStatus('the shell to exit')).toBe(0);
  });

  it('into a pipe: no progress token is sent, stdout is the result alone and stderr has no progress', async () => {
    const args = setup();
    const trace = path.join(box!.dir, 'trace.jsonl');
    const r = await runCli([...args, '--trace', trace, 'call', 'everything', ...LONG], {
      env: box!.env,
      cwd: box!.cwd,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${RESULT}\n`);
    expect(r.stderr).not.toMatch(/\d\/4/);
    const sent = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.direction === 'send' && l.message.method === 'tools/call');
    expect(sent.message.params.name).toBe('trigger-long-running-operation');
    expect(sent.message.params._meta?.progressToken).toBeUndefined();
    const json = await runCli([...args, '--json', 'call', 'everything', ...LONG], {
      env: box!.env,
      cwd: box!.cwd,
    });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).content[0].text).toBe(RESULT);
    expect(json.stderr).not.toMatch(/\d\/4/);
  });
});

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

/**
 * NO_COLOR (https://no-color.org, issue #12): on a terminal the live progress is coloured;
 * with NO_COLOR set to anything but the empty string neither the progress nor the table
 * carries a colour or attribute. Read from a real pseudo-terminal (tmux) with each cell's
 * attributes (`capture-pane -e`).
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
let tmux: Tmux | undefined;
afterEach((context) => {
  if (context.task.result?.state === 'fail' && tmux) console.log(tmux.screen({ escapes: true }));
  tmux?.close();
  tmux = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

/** Runs `servers` and `tools` on a terminal with `env`; the screen with its attributes. */
async function onTerminal(extraEnv: Record<string, string>): Promise<string> {
  box = sandbox('mcpkit-cli-no-color-');
  const config = box.file('servers.json', {
    mcpServers: {
      good: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'good.log')] },
    },
  });
  tmux = new Tmux(box, { ...box.env, ...extraEnv });
  tmux.start([process.execPath, bin, '--strict-config', '-c', config, 'tools']);
  expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(0);
  const screen = tmux.screen({ escapes: true });
  // The progress line and the command's own output are both there.
  expect(screen).toMatch(/✔.*good.*connected · 4 tools/);
  expect(screen).toContain('good (4 tools)');
  return screen;
}

// An SGR sequence (ESC [ … m): a colour or an attribute (bold, dim) on some cell.
const ESC = String.fromCharCode(0x1b);
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`);
/** An SGR sequence that turns on `code` (among others) right before `text`. */
const styled = (code: number, text: string) =>
  new RegExp(`${ESC}\\[(?:[0-9]+;)*${code}(?:;[0-9]+)*m${text}`);

describe('NO_COLOR', () => {
  it('without it, the progress on a terminal is coloured (a green ✔, the name in bold)', async () => {
    const screen = await onTerminal({});
    expect(screen).toMatch(styled(32, '✔'));
    expect(screen).toMatch(styled(1, 'good'));
  });

  it('NO_COLOR=1: no colour and no attribute anywhere on the screen, progress or table', async () => {
    const screen = await onTerminal({ NO_COLOR: '1' });
    expect(screen).not.toMatch(SGR);
  });
});

import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  serversDir,
} from '../hostile/cli-harness.js';
import { runShellPiped } from './support/shell-piped.js';

/**
 * What a hostile server sends (cli-ansi-server.mjs: OSC 52, OSC 0, ESC[2J, a bare CR, a C1
 * CSI, a bidi override in every text it controls) reaches the terminal escaped in `doctor`
 * and in `shell`: its name and version, tool names and descriptions, error messages, and
 * the stderr it writes before it crashes.
 */
const ansiServer = path.join(serversDir, 'cli-ansi-server.mjs');
const SHOWN =
  '\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned-title\\x07\\x1b[2J\\rOVERWRITTEN\\u009b31m\\u202eLIAME';
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what we look for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const controls = (text: string) => (text.match(CONTROL) ?? []).filter((c) => c !== '\n');

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

function config(b: Sandbox): string {
  return b.file('ansi.json', {
    mcpServers: { ansi: { command: process.execPath, args: [ansiServer, b.dir] } },
  });
}

describe('hostile server text in doctor and shell', () => {
  it('doctor: the name and version a server gives are shown escaped', async () => {
    box = sandbox('mcpkit-cli-doctor-ansi-');
    const r = await runCli(['--strict-config', '-c', config(box), 'doctor'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(controls(r.stdout)).toEqual([]);
    expect(controls(r.stderr)).toEqual([]);
    expect(r.stdout).toContain(`ansi${SHOWN} 1.0${SHOWN}`);
  });

  it('shell: tools, servers, a server error and a crash with its stderr are shown escaped', async () => {
    box = sandbox('mcpkit-cli-shell-ansi-');
    const { code, stdout, stderr } = await runShellPiped(
      ['--strict-config', '-c', config(box), 'shell'],
      'tools\nservers\ncall ansi fail\ncall ansi crash\n',
      {
        env: box.env,
        cwd: box.cwd,
      },
    );
    expect(code).toBe(0);
    expect(controls(stdout)).toEqual([]);
    expect(controls(stderr)).toEqual([]);
    expect(stdout).toContain(`echo${SHOWN}`);
    expect(stdout).toContain(`desc${SHOWN}`);
    expect(stderr).toContain(`boom${SHOWN}`);
    // The crash is said as it happens, with the stderr it wrote, escaped.
    expect(stderr).toMatch(/\[ansi\] reconnecting \(1\/5\)/);
    expect(stderr).toContain(`fatal${SHOWN}`);
  });
});

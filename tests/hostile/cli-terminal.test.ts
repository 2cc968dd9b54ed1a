import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bin, runCli, type Sandbox, sandbox, serversDir } from './cli-harness.js';
import { PAYLOAD } from './servers/cli-ansi-payload.mjs';

/**
 * Finding 7 of issue #10: `tools`, `servers`, `call` and a crashed server's stderr tail
 * printed a server's escape sequences raw (OSC 52 clipboard writes, OSC 0 titles, ESC[2J,
 * bare CR). The built CLI runs here against a real hostile server (cli-ansi-server.mjs).
 */
const ansiServer = path.join(serversDir, 'cli-ansi-server.mjs');
// How the CLI shows the payload: every control character escaped, nothing dropped.
const SHOWN =
  '\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned-title\\x07\\x1b[2J\\rOVERWRITTEN\\u009b31m\\u202eLIAME';

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what we look for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Characters a terminal acts on, other than the newline (and, in `allowed`, others). */
function controls(text: string, allowed = '\n'): string[] {
  return (text.match(CONTROL) ?? []).filter((c) => !allowed.includes(c));
}

let box: Sandbox;
let args: string[];
beforeEach(() => {
  box = sandbox();
  const config = box.file('ansi.json', {
    mcpServers: { ansi: { command: 'node', args: [ansiServer] } },
  });
  args = ['--strict-config', '-c', config];
});
afterEach(() => box[Symbol.dispose]());

const cli = (...rest: string[]) => runCli([...args, ...rest], { env: box.env, cwd: box.cwd });

describe('server text reaches the terminal neutralized', () => {
  it('tools: names and descriptions show their escapes instead of acting on the terminal', async () => {
    const r = await cli('tools');
    expect(r.code).toBe(0);
    expect(controls(r.stdout)).toEqual([]);
    expect(controls(r.stderr)).toEqual([]);
    expect(r.stdout).toContain(`echo${SHOWN}`);
    expect(r.stdout).toContain(`desc${SHOWN}`);
  });

  it('tools --json: the same values, escaped inside the JSON text', async () => {
    const r = await cli('--json', 'tools');
    expect(controls(r.stdout)).toEqual([]);
    const tools = JSON.parse(r.stdout).servers[0].tools;
    expect(tools[0].name).toBe(`echo${PAYLOAD}`);
    expect(tools[0].description).toBe(`desc${PAYLOAD}`);
  });

  it("servers: the server's name and version are neutralized", async () => {
    const r = await cli('servers');
    expect(r.code).toBe(0);
    expect(controls(r.stdout)).toEqual([]);
    // The row is cut to the table's width: the start is enough.
    expect(r.stdout).toContain(`ansi${SHOWN.slice(0, 40)}`);
    const json = await cli('--json', 'servers');
    expect(controls(json.stdout)).toEqual([]);
    expect(JSON.parse(json.stdout).servers[0].server.name).toBe(`ansi${PAYLOAD}`);
  });

  it('call into a pipe is byte-exact; --sanitize escapes it', async () => {
    const raw = await cli('call', 'ansi', 'echo');
    expect(raw.code).toBe(0);
    expect(raw.stdout).toBe(`result${PAYLOAD}\n`);
    const clean = await cli('--sanitize', 'call', 'ansi', 'echo');
    expect(clean.stdout).toBe(`result${SHOWN}\n`);
    expect(controls(clean.stdout)).toEqual([]);
  });

  it('an error message from the server is always neutralized', async () => {
    const r = await cli('call', 'ansi', 'fail');
    expect(r.code).toBe(1);
    expect(controls(r.stderr)).toEqual([]);
    expect(r.stderr).toContain(`boom${SHOWN}`);
  });

  it("a crashed server's stderr tail is always neutralized", async () => {
    const r = await cli('call', 'ansi', 'crash');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('exited with code 3');
    expect(controls(r.stderr)).toEqual([]);
    expect(r.stderr).toContain(`fatal${SHOWN}`);
  });

  it("a repository's .mcp.json with escapes in a server name and a command: list and servers stay neutral", async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      path.join(box.cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: { [`evil${PAYLOAD}`]: { command: 'x' }, ok: { command: `y${PAYLOAD}` } },
      }),
    );
    const run = (...a: string[]) => runCli(a, { env: box.env, cwd: box.cwd });
    const [list, listJson, servers] = await Promise.all([
      run('list'),
      run('--json', 'list'),
      run('servers'),
    ]);
    for (const r of [list, listJson, servers]) {
      expect(controls(r.stdout)).toEqual([]);
      expect(controls(r.stderr)).toEqual([]);
    }
    // The bad name is reported (escaped), the good entry listed; its command is data.
    expect(list.stderr).toContain('mcpServers["evil\\u001b]52;c;');
    expect(list.stdout).toMatch(/^ok\s+project/m);
    expect(JSON.parse(listJson.stdout).servers[0].config.command).toBe(`y${PAYLOAD}`);
  });

  it('call on a terminal (a real pseudo-terminal through script(1)) is neutralized', async () => {
    const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
    const command = [process.execPath, bin, ...args, 'call', 'ansi', 'echo'].map(quote).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: box.env,
      cwd: box.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      screen += t;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    // The terminal turns each \n into \r\n; nothing else may be a control character.
    expect(controls(screen.replaceAll('\r\n', '\n'))).toEqual([]);
    expect(screen).toContain(`result${SHOWN}`);
  });
});

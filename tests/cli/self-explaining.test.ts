import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
 * Issue #28, items 2-4: the CLI explains itself. Tools show their parameters (`tools`,
 * `get`, `call <server> <tool> --help`), `call` checks its arguments against the tool's
 * input schema before sending, each command's help is its own, and a near miss (command,
 * flag, server, tool) gets the nearest name. Against server-everything (the demo config),
 * with the built CLI.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const demo = path.join(root, 'examples/demo.mcp.json');

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

function cli(...args: string[]) {
  box ??= sandbox('mcpkit-cli-explain-');
  return spawnSync(process.execPath, [bin, '--strict-config', '-c', demo, ...args], {
    env: box.env,
    cwd: box.cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('tools with their parameters', () => {
  it('tools (into a pipe): each tool with its signature, optional parameters marked, enums spelled out, nothing cut', () => {
    const r = cli('tools');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      '\n  get-sum(a: number, b: number)\n      Returns the sum of two numbers\n',
    );
    expect(r.stdout).toContain(
      '  trigger-long-running-operation(duration?: number, steps?: number)\n',
    );
    expect(r.stdout).toContain(
      '  get-annotated-message(messageType: "error"|"success"|"debug", includeImage?: boolean)\n',
    );
    // The longest signature, whole in a pipe.
    expect(r.stdout).toContain(
      '  gzip-file-as-resource(name?: string, data?: string, outputType?: "resourceLink"|"resource")\n',
    );
    expect(r.stdout).toContain('  get-env()\n');
  });

  it('get <server>: each parameter with its type, required or optional, default and description; --json adds each inputSchema', () => {
    const r = cli('get', 'everything');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {6}a: number {2}\(required\) {2}First number$/m);
    expect(r.stdout).toMatch(
      /^ {6}count: number {2}\(optional, default 3\) {2}Number of resource links/m,
    );
    const json = JSON.parse(cli('--json', 'get', 'everything').stdout);
    const sum = json.tools.find((t: { name: string }) => t.name === 'get-sum');
    expect(sum).toMatchObject({
      name: 'get-sum',
      hostName: 'mcp__everything__get-sum',
      inputSchema: { type: 'object', required: ['a', 'b'] },
    });
  });

  it("call <server> <tool> --help: the tool's parameters, and no call is made", () => {
    box = sandbox('mcpkit-cli-explain-');
    const trace = path.join(box.dir, 'trace.jsonl');
    const r = cli('--trace', trace, 'call', 'everything', 'get-sum', '--help');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('mcpkit call everything get-sum(a: number, b: number)');
    expect(r.stdout).toMatch(/^ {2}b: number {2}\(required\) {2}Second number$/m);
    expect(readFileSync(trace, 'utf8')).not.toContain('"tools/call"');
  });
});

describe('call checks its arguments against the input schema before sending', () => {
  it('an unknown key (c=1) is refused before anything is sent, naming it and the known parameters', () => {
    box = sandbox('mcpkit-cli-explain-');
    const trace = path.join(box.dir, 'trace.jsonl');
    const r = cli('--trace', trace, 'call', 'everything', 'get-sum', 'a=1', 'b=2', 'c=1');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('tool "get-sum" of server "everything": it has no parameter "c"');
    expect(r.stderr).toContain('its parameters: a: number, b: number');
    expect(readFileSync(trace, 'utf8')).not.toContain('"tools/call"');
  });

  it('a missing required parameter is named (not the server\'s "expected number, received undefined")', () => {
    const r = cli('call', 'everything', 'get-sum', 'a=1');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('it needs "b: number"');
    expect(r.stderr).not.toContain('received undefined');
  });

  it('a value of the wrong type in JSON is named with what the schema says', () => {
    const r = cli('call', 'everything', 'get-annotated-message', '{"messageType": "loud"}');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"messageType" must be equal to one of the allowed values');
  });

  it("--no-check sends the call as given: the server's own words come back", () => {
    const r = cli('call', '--no-check', 'everything', 'get-sum', 'a=1');
    expect(r.status).toBe(1);
    // server-everything answers with an isError result: its words, on stdout.
    expect(r.stdout).toContain('received undefined at b');
  });

  it('arguments that fit are sent, and answered', () => {
    const r = cli('call', 'everything', 'get-sum', 'a=2', 'b=3');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('5');
  });
});

describe('help: top level in 40 lines, each command its own', () => {
  it('mcpkit --help fits in 40 lines, one line a command', () => {
    const r = cli('--help');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(r.stdout).toMatch(
      /^ {2}tools \[server\.\.\.\] +the tools of every server, with their parameters$/m,
    );
  });

  it('call --help: only the flags call takes, and examples', () => {
    const r = cli('call', '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: mcpkit call <server> <tool> [json | - | key=value...]');
    expect(r.stdout).toContain('--no-check');
    for (const other of ['--login-timeout', '-e, --env', '-H, --header', '--transport'])
      expect(r.stdout).not.toContain(other);
    expect(r.stdout).toContain('Examples:\n  mcpkit call everything get-sum a=2 b=3\n');
  });

  it('a flag the command does not take is an error naming it and the nearest it takes', () => {
    const typo = cli('tools', '--jsno');
    expect(typo.status).toBe(2);
    expect(typo.stderr.trimEnd()).toBe(
      'mcpkit: mcpkit tools has no flag --jsno — did you mean "--json"? (see "mcpkit tools --help")',
    );
    const elsewhere = cli('call', '--scope', 'user', 'everything', 'get-sum');
    expect(elsewhere.status).toBe(2);
    expect(elsewhere.stderr).toContain(
      'mcpkit call has no flag --scope — --scope is a flag of add',
    );
  });
});

describe('suggestions', () => {
  it('mcpkit tool: did you mean "tools"?', () => {
    const r = cli('tool');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "tool" — did you mean "tools"?');
  });

  it('mcpkit help call is call --help; help with an unknown command suggests one', () => {
    const r = cli('help', 'call');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: mcpkit call <server> <tool>');
    const typo = cli('help', 'tool');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('unknown command "tool" — did you mean "tools"?');
  });

  it('call everythin get_sum: the nearest server', () => {
    const r = cli('call', 'everythin', 'get_sum');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no server named "everythin" — did you mean "everything"?');
  });

  it('call everything get_sum: the nearest tool', () => {
    const r = cli('call', 'everything', 'get_sum', 'a=1');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'server "everything" has no tool "get_sum" — did you mean "get-sum"?',
    );
  });
});

describe('tools on a terminal', () => {
  it('a 60-column terminal: long signatures are cut to its width with "…"; a pipe gets them whole', async () => {
    box = sandbox('mcpkit-cli-explain-');
    tmux = new Tmux(box, { ...box.env, NO_COLOR: '1' });
    tmux.start([process.execPath, bin, '--strict-config', '-c', demo, 'tools'], {
      columns: 60,
      rows: 50,
    });
    expect(await waitFor(() => tmux!.exitStatus(), 'the CLI to exit')).toBe(0);
    const screen = tmux.screen();
    const line = screen.split('\n').find((l) => l.startsWith('  gzip-file-as-resource('));
    expect(line).toBe(
      `${'  gzip-file-as-resource(name?: string, data?: string, outputType?'.slice(0, 59)}…`,
    );
    // Nothing wrapped: every line of the listing fits the 60 columns (capture-pane -J
    // would join a wrapped line into one longer than that).
    for (const l of screen.split('\n')) expect([...l].length).toBeLessThanOrEqual(60);
    expect(screen).toContain('  get-sum(a: number, b: number)');
  });
});

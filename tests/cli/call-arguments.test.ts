import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, processesWith, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { runShellPiped } from './support/shell-piped.js';

/** `mcpkit call`'s arguments: JSON, `-` for JSON on stdin, or key=value typed from the schema. */
const root = fileURLToPath(new URL('../../', import.meta.url));
const demo = path.join(root, 'examples/demo.mcp.json');

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

function call(args: string[], input?: string) {
  box ??= sandbox('mcpkit-cli-call-');
  return spawnSync(process.execPath, [bin, '--strict-config', '-c', demo, 'call', ...args], {
    env: box.env,
    cwd: box.cwd,
    encoding: 'utf8',
    ...(input !== undefined ? { input } : { stdio: ['ignore', 'pipe', 'pipe'] }),
  });
}

describe('mcpkit call arguments, against server-everything', () => {
  it('key=value pairs are typed from the input schema (numbers stay numbers)', () => {
    const r = call(['everything', 'get-sum', 'a=2', 'b=3.5']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\b5\.5\b/);
  });

  it('a value that does not fit its declared type is refused, naming the key (a usage error: exit 2)', () => {
    const r = call(['everything', 'get-sum', 'a=two', 'b=3']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('"a" must be a number, got "two"');
  });

  it('- reads a JSON object from stdin', () => {
    const r = call(['everything', 'get-sum', '-'], '{"a": 40, "b": 2}');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\b42\b/);
    const bad = call(['everything', 'get-sum', '-'], '[1, 2]');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('the tool arguments on stdin must be a JSON object');
  });
});

describe('mcpkit call with no arguments, against a server that validates them (SDK v1, zod)', () => {
  const strict = fileURLToPath(
    new URL('./servers/sdk-v1-object-input-server.mjs', import.meta.url),
  );

  it('call and the shell send arguments {} when the input schema is an object, so a server that refuses a call without them answers', async () => {
    box ??= sandbox('mcpkit-cli-call-empty-');
    const config = box.file('strict.json', {
      mcpServers: { strict: { command: process.execPath, args: [strict] } },
    });
    const r = spawnSync(process.execPath, [bin, '-c', config, 'call', 'strict', 'greet'], {
      env: box.env,
      cwd: box.cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.stderr).not.toContain('expected object, received undefined');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('hello, world\n');

    const shell = await runShellPiped(['-c', config, 'shell'], 'call strict greet\n', {
      env: box.env,
      cwd: box.cwd,
    });
    expect(shell.stderr).not.toContain('expected object, received undefined');
    expect(shell.stdout).toContain('hello, world\n');
  });
});

/**
 * The shell says what one-shot commands say (issue #28 leftovers): `tools` with signatures,
 * `call` with its arguments checked first, and no "(legacy)" tag on a 2025 server (nor in
 * `doctor`), as `servers` shows none. Against server-everything (2025-11-25).
 */
function shell(input: string) {
  box = sandbox('mcpkit-cli-shell-parity-');
  return runShellPiped(['--strict-config', '-c', demo, 'shell'], input, {
    env: box.env,
    cwd: box.cwd,
  });
}

describe('the shell and one-shot commands agree', () => {
  it("shell tools shows each tool's signature, as mcpkit tools does", async () => {
    const r = await shell('tools everything\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}get-sum\(a: number, b: number\)$/m);
    expect(r.stdout).toMatch(/^ {6}Returns the sum of two numbers$/m);
  });

  it('shell call checks its arguments against the input schema before sending (call --no-check sends them as typed)', async () => {
    const r = await shell(
      'call everything get-sum a=1 c=2\ncall --no-check everything get-sum a=1 c=2\n',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'tool "get-sum" of server "everything": it has no parameter "c"; it needs "b: number" (its parameters: a: number, b: number; "call --no-check …" sends the call as given)',
    );
    // Unchecked, the call reaches the server, which answers with its own words.
    expect(r.stdout).toContain('Input validation error');
    expect(r.stdout).toContain('(the tool reported an error)');
  });

  it('the shell\'s connected line and doctor show the protocol version without "(legacy)"', async () => {
    const r = await shell('help\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\[everything\] connected · 2025-11-25 · \d+ ms/);
    expect(r.stderr).not.toContain('(legacy)');
    const doctor = spawnSync(process.execPath, [bin, '--strict-config', '-c', demo, 'doctor'], {
      env: box!.env,
      cwd: box!.cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const text = doctor.stdout + doctor.stderr;
    expect(text).toMatch(/connect +2025-11-25, mcp-servers\/everything [\d.]+, \d+ ms/);
    expect(text).not.toContain('(legacy)');
  });
});

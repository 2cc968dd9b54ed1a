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

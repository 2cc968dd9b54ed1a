import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, processesWith, type Sandbox, sandbox } from '../hostile/cli-harness.js';

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

  it('a value that does not fit its declared type is refused, naming the key', () => {
    const r = call(['everything', 'get-sum', 'a=two', 'b=3']);
    expect(r.status).toBe(1);
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

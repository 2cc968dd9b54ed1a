import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';

/**
 * Issue #28 item 9: secrets at rest. A config file that holds env or header values is
 * written 0600 (its folders 0700 when mcpkit makes them), an existing one is tightened,
 * a file without them keeps the mode it has; a trace file is 0600 even when it existed.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

const mode = (file: string) => statSync(file).mode & 0o777;
const run = (...args: string[]) => runCli(args, { env: box!.env, cwd: box!.cwd });

describe('secrets at rest', () => {
  it('add --scope user -e GH_TOKEN=… writes mcp.json 0600 in a folder made 0700', async () => {
    box = sandbox('mcpkit-cli-secrets-');
    const r = await run(
      'add',
      '--scope',
      'user',
      '-e',
      'GH_TOKEN=ghp_secret123',
      'gh',
      'npx',
      'gh-mcp',
    );
    expect(r.code, r.stderr).toBe(0);
    const file = path.join(box.home, '.config/mcpkit/mcp.json');
    expect(readFileSync(file, 'utf8')).toContain('ghp_secret123');
    expect(mode(file)).toBe(0o600);
    expect(mode(path.dirname(file))).toBe(0o700);
  });

  it('a header value written into an existing 0644 project file tightens it to 0600; a file without secrets keeps its mode', async () => {
    box = sandbox('mcpkit-cli-secrets-');
    const project = path.join(box.cwd, '.mcp.json');
    writeFileSync(project, '{ "mcpServers": {} }\n');
    chmodSync(project, 0o644);
    const plain = await run('add', '--scope', 'project', 'plain', 'node', 'x.js');
    expect(plain.code, plain.stderr).toBe(0);
    expect(mode(project)).toBe(0o644);
    const r = await run(
      'add',
      '--scope',
      'project',
      '--transport',
      'http',
      '-H',
      'Authorization: Bearer sk-live-1234',
      'api',
      'https://example.invalid/mcp',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(project, 'utf8')).toContain('sk-live-1234');
    expect(mode(project)).toBe(0o600);
    // Written again without a new secret: still private (the header is still in it).
    const again = await run('add', '--scope', 'project', 'other', 'node', 'y.js');
    expect(again.code, again.stderr).toBe(0);
    expect(mode(project)).toBe(0o600);
  });

  it('a user file made 0600 by hand is not loosened by a write without secrets', async () => {
    box = sandbox('mcpkit-cli-secrets-');
    const dir = path.join(box.home, '.config/mcpkit');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'mcp.json');
    writeFileSync(file, '{ "mcpServers": {} }\n');
    chmodSync(file, 0o600);
    const r = await run('add', '--scope', 'user', 'plain', 'node', 'x.js');
    expect(r.code, r.stderr).toBe(0);
    expect(mode(file)).toBe(0o600);
  });

  it('--trace into an existing 0644 file makes it 0600', async () => {
    box = sandbox('mcpkit-cli-secrets-');
    const config = box.file('servers.json', {
      mcpServers: {
        fx: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'fx.log')] },
      },
    });
    const trace = path.join(box.dir, 'trace.jsonl');
    writeFileSync(trace, '');
    chmodSync(trace, 0o644);
    const r = await run(
      '--strict-config',
      '-c',
      config,
      '--trace',
      trace,
      'call',
      'fx',
      'echo',
      '{}',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(trace, 'utf8')).toContain('"tools/call"');
    expect(mode(trace)).toBe(0o600);
  });
});

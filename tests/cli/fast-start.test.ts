import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, type Sandbox, sandbox } from '../hostile/cli-harness.js';

/**
 * Fast start (issue #12): `--version` and `--help` load nothing but the CLI's own code,
 * `list` only the config package. Each built CLI run records every module it resolves
 * (a module hook loaded with `--import`).
 */
const recorder = fileURLToPath(new URL('./support/record-loads.mjs', import.meta.url));
const builtinRecorder = fileURLToPath(new URL('./support/record-builtins.cjs', import.meta.url));
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
afterEach(() => {
  box?.[Symbol.dispose]();
  box = undefined;
});

function loads(...args: string[]): string[] {
  return recorded('MCPKIT_LOAD_LOG', args);
}

/** The Node built-in modules (`crypto`, `fs`, …) the run had loaded when it exited. */
function builtins(...args: string[]): string[] {
  return recorded('MCPKIT_BUILTIN_LOG', args);
}

/**
 * A run without module hooks (`--require`, not `--import`): the built-in modules it loaded
 * and the files in its CommonJS require cache.
 */
function unhooked(...args: string[]): { builtins: string[]; required: string[] } {
  const lines = recorded('MCPKIT_BUILTIN_LOG', args, ['--require', builtinRecorder]);
  const at = lines.indexOf('--');
  return { builtins: lines.slice(0, at), required: lines.slice(at + 1) };
}

function recorded(
  variable: string,
  args: string[],
  preload: string[] = ['--import', recorder],
): string[] {
  box ??= sandbox('mcpkit-cli-loads-');
  const log = path.join(box.dir, `${variable}.log`);
  rmSync(log, { force: true });
  const r = spawnSync(process.execPath, [...preload, bin, ...args], {
    env: { ...box.env, [variable]: log },
    cwd: box.cwd,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
}

const cliDir = `${path.dirname(bin)}${path.sep}`;
const ours = (url: string) => url.startsWith('node:') || fileURLToPath(url).startsWith(cliDir);

describe('fast start: each command loads only what it uses', () => {
  it.each(['--version', '--help', 'tools --help'])(
    'mcpkit %s loads no package, only the CLI itself',
    (args) => {
      const urls = loads(...args.split(' '));
      expect(urls.some((u) => u.endsWith('/bin.cjs'))).toBe(true);
      expect(urls.filter((u) => !ours(u))).toEqual([]);
    },
  );

  it('mcpkit --version alone loads the CommonJS launcher and nothing else: no ES module entry, main or command table (#21)', () => {
    const files = loads('--version').filter((u) => !u.startsWith('node:'));
    expect(files).toEqual([files.find((u) => u.endsWith('/dist/bin.cjs'))]);
    // Node's ES module loader is never set to work (its module jobs cost about a fifth of an
    // empty Node's start-up); an ES module entry could not avoid it.
    expect(unhooked('--version').builtins).not.toContain('internal/modules/esm/module_job');
    expect(unhooked('servers').builtins).toContain('internal/modules/esm/module_job');
  });

  it.each([['list'], ['--json', 'list']])(
    'mcpkit %s runs from the CommonJS launcher and dist/list.cjs alone: no ES module loader, no other file (#21)',
    (...args) => {
      const { builtins, required } = unhooked(...args);
      expect(required.map((f) => path.relative(path.dirname(bin), f))).toEqual([
        'bin.cjs',
        'list.cjs',
      ]);
      expect(builtins).not.toContain('internal/modules/esm/module_job');
    },
  );

  it('dist/list.cjs holds @mcpkit/config and the error base of @mcpkit/jsonrpc, nothing else of the stack (no client, transport, manager, auth, zod)', () => {
    const sources: string[] = JSON.parse(
      readFileSync(path.join(path.dirname(bin), 'list.cjs.map'), 'utf8'),
    ).sources;
    const packages = sources.filter((s) => s.includes('/packages/'));
    expect(packages.some((s) => s.includes('/packages/config/src/load.ts'))).toBe(true);
    expect(
      packages.filter(
        (s) => !/\/packages\/(config\/src\/|jsonrpc\/src\/(errors|is-record)\.ts$)/.test(s),
      ),
    ).toEqual([]);
    expect(
      sources.filter((s) => /undici|\/ws\/|jose|ajv|log-update|@clack|\/zod[@/]/.test(s)),
    ).toEqual([]);
    // Regression: config imported zod at load time (95 of the 106 modules `list` loaded); a
    // valid configuration is checked by hand-written rules and zod loads only for the
    // messages of an invalid entry (next test).
  });

  it('mcpkit list of an invalid entry loads zod then, for its message: the CommonJS list finds zod (a dependency of the CLI)', () => {
    box = sandbox('mcpkit-cli-loads-');
    writeFileSync(
      path.join(box.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { empty: { command: '' } } }),
    );
    const log = path.join(box.dir, 'zod.log');
    const r = spawnSync(process.execPath, ['--require', builtinRecorder, bin, 'list'], {
      env: { ...box.env, MCPKIT_BUILTIN_LOG: log },
      cwd: box.cwd,
      encoding: 'utf8',
    });
    expect(r.stderr).toContain('mcpServers.empty.command: expected a non-empty command');
    expect(readFileSync(log, 'utf8')).toMatch(/\/zod\/index\.c?js\n/);
  });

  it('mcpkit list of a project server awaiting approval loads no node:crypto; --json list, which prints the approval digest, does (#21)', () => {
    box = sandbox('mcpkit-cli-loads-');
    writeFileSync(
      path.join(box.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { files: { command: 'node', args: ['server.mjs'] } } }),
    );
    // node:crypto costs about a fifth of an empty Node's start-up; the approval digest is
    // computed only when read (a stored approval to compare, or the JSON output).
    expect(builtins('list')).not.toContain('crypto');
    expect(builtins('--json', 'list')).toContain('crypto');
  });

  it('mcpkit tools over a stdio server loads no auth, HTTP or WebSocket code (no @mcpkit/auth, jose, undici, ws)', () => {
    box = sandbox('mcpkit-cli-loads-');
    const config = box.file('servers.json', {
      mcpServers: {
        local: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'fx.log')] },
      },
    });
    const urls = loads('--strict-config', '-c', config, 'tools');
    // It did connect: the stdio transport and the manager were loaded.
    expect(urls.some((u) => u.includes('/packages/transport-stdio/'))).toBe(true);
    expect(urls.some((u) => u.includes('/packages/manager/'))).toBe(true);
    expect(
      urls.filter((u) =>
        /\/packages\/(auth|transport-streamable-http|transport-sse|transport-websocket)\/|jose|undici|\/ws@/.test(
          u,
        ),
      ),
    ).toEqual([]);
  });
});

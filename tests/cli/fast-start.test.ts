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

function recorded(variable: string, args: string[]): string[] {
  box ??= sandbox('mcpkit-cli-loads-');
  const log = path.join(box.dir, `${variable}.log`);
  rmSync(log, { force: true });
  const r = spawnSync(process.execPath, ['--import', recorder, bin, ...args], {
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
      expect(urls.some((u) => u.endsWith('/bin.js'))).toBe(true);
      expect(urls.filter((u) => !ours(u))).toEqual([]);
    },
  );

  it('mcpkit --version alone loads neither main nor the command table: bin.js and one chunk (#21)', () => {
    const files = loads('--version').filter((u) => !u.startsWith('node:'));
    expect(files.some((u) => u.endsWith('/bin.js'))).toBe(true);
    expect(files.filter((u) => /\/(main|command-table)[-.]/.test(u))).toEqual([]);
    expect(files.length).toBeLessThanOrEqual(2);
  });

  it('mcpkit list loads @mcpkit/config and nothing else of the stack (no client, transport, manager, auth)', () => {
    const urls = loads('list');
    const packages = urls.filter((u) => !ours(u));
    expect(packages.some((u) => u.includes('/packages/config/'))).toBe(true);
    // Config's own dependency is the error base of @mcpkit/jsonrpc (no dependencies itself).
    expect(packages.filter((u) => /\/packages\/(?!config\/|jsonrpc\/)/.test(u))).toEqual([]);
    expect(packages.filter((u) => /undici|\/ws\/|jose|ajv|log-update|@clack/.test(u))).toEqual([]);
    // Regression: config imported zod at load time (95 of the 106 modules `list` loaded); a
    // valid configuration is now checked by hand-written rules and zod loads only for the
    // messages of an invalid entry.
    expect(packages.filter((u) => /\/zod[@/]/.test(u))).toEqual([]);
    // Regression (#21): list loaded the whole JSON-RPC bundle for its error classes, and
    // jsonc-parser's UMD main through the CommonJS loader; now @mcpkit/jsonrpc/errors and
    // jsonc-parser bundled into config from its ESM build.
    expect(packages.filter((u) => u.endsWith('/packages/jsonrpc/dist/index.js'))).toEqual([]);
    expect(packages.filter((u) => /jsonc-parser/.test(u))).toEqual([]);
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

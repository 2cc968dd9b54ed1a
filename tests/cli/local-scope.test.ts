import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  waitFor,
} from '../hostile/cli-harness.js';

/**
 * Issue #28 item 8: writes to the local scope are no surprise. Every write says the scope,
 * the folders it counts for and the file; `serve` with no servers says so on stderr;
 * `list` from a folder with none says which scopes and files it read.
 */
let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

const run = (...args: string[]) => runCli(args, { env: box!.env, cwd: box!.cwd });

describe('where a write went', () => {
  it('add, import and remove say the scope, the folder and the file', async () => {
    box = sandbox('mcpkit-cli-local-scope-');
    const state = path.join(box.home, '.config/mcpkit/projects.json');
    const add = await run('add', 'notes', 'node', 'notes.js');
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toBe(
      `added server "notes" to the local scope (this folder only: ${box.cwd}; --scope user for every folder) in ${state}\n`,
    );
    const user = await run('add', '--scope', 'user', 'gh', 'node', 'gh.js');
    expect(user.stdout).toBe(
      `added server "gh" to the user scope (every folder) in ${path.join(box.home, '.config/mcpkit/mcp.json')}\n`,
    );
    const project = await run('add', '--scope', 'project', 'shared', 'node', 's.js');
    expect(project.stdout).toBe(
      `added server "shared" to the project scope (${box.cwd} and its subfolders, for everyone with the folder) in ${path.join(box.cwd, '.mcp.json')}\n`,
    );
    const file = box.file('claude_desktop_config.json', {
      mcpServers: { fs: { command: 'node', args: ['fs.js'] } },
    });
    const imported = await run('import', '--from', 'claude-desktop', file);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain(
      `imported "fs" into the local scope (this folder only: ${box.cwd}; --scope user for every folder) in ${state}`,
    );
    const removed = await run('remove', 'notes');
    expect(removed.stdout).toBe(
      `removed server "notes" from the local scope (this folder only: ${box.cwd}) in ${state}\n`,
    );
  });

  it('list from another folder says which scopes and files it read', async () => {
    box = sandbox('mcpkit-cli-local-scope-');
    expect((await run('add', 'notes', 'node', 'notes.js')).code).toBe(0);
    const sub = path.join(box.dir, 'elsewhere');
    mkdirSync(sub);
    const r = await runCli(['list'], { env: box.env, cwd: sub });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`no MCP servers configured for ${sub}; read:`);
    expect(r.stdout).toMatch(
      new RegExp(
        `local +${path.join(box.home, '.config/mcpkit/projects.json')} \\(nothing for ${sub}\\)`,
      ),
    );
    expect(r.stdout).toContain(
      `user     ${path.join(box.home, '.config/mcpkit/mcp.json')} (not found)`,
    );
    expect(r.stdout).toContain(`project  ${path.join(sub, '.mcp.json')} (not found)`);
  });

  it('serve with no servers says so on stderr', async () => {
    box = sandbox('mcpkit-cli-local-scope-');
    const child = spawn(process.execPath, [bin, 'serve'], {
      env: box.env,
      cwd: box.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => resolve(code)),
    );
    await waitFor(() => stderr.includes('no MCP servers configured'), 'the warning');
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toContain(
      `mcpkit serve: no MCP servers configured for ${box.cwd} (read: local `,
    );
    expect(stderr).toContain('the gateway serves no tools');
  });
});

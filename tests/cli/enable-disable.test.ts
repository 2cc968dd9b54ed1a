import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { runShellPiped } from './support/shell-piped.js';

/** `mcpkit enable` / `disable`: persisted in the entry's own file, references kept. */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

/** A `${FIXTURE_TOKEN}` reference as the config file holds it. */
const REFERENCE = `$${'{'}FIXTURE_TOKEN}`;

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

describe('mcpkit enable / disable', () => {
  it('disable writes "disabled": true into the user file (a variable reference stays a reference), servers stops starting it; enable undoes it', async () => {
    box = sandbox('mcpkit-cli-enable-');
    const env = { ...box.env, FIXTURE_TOKEN: 'tok-secret-1234' };
    const run = (...args: string[]) => runCli(args, { env, cwd: box!.cwd });
    const entry = {
      command: process.execPath,
      args: [fixture, 'ok', path.join(box.dir, 'fx.log')],
      env: { TOKEN: REFERENCE },
    };
    const added = await run('add-json', '--scope', 'user', 'fx', JSON.stringify(entry));
    expect(added.code, added.stderr).toBe(0);
    const file = path.join(box.home, '.config/mcpkit/mcp.json');

    const off = await run('disable', 'fx');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toBe(`disabled server "fx" in the user scope (every folder) in ${file}\n`);
    const written = JSON.parse(readFileSync(file, 'utf8')).mcpServers.fx;
    expect(written).toMatchObject({ disabled: true, env: { TOKEN: REFERENCE } });
    const servers = await run('servers');
    expect(servers.stdout).toMatch(/fx\s+not started: server "fx" is disabled in /);

    const on = await run('enable', 'fx');
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.fx.disabled).toBeUndefined();
    const back = await run('--json', 'servers');
    expect(JSON.parse(back.stdout).servers[0]).toMatchObject({ name: 'fx', status: 'connected' });
  });

  it('a listing asked for one server the gate does not start exits 1; a name given as a positional works as -s', async () => {
    box = sandbox('mcpkit-cli-enable-');
    const config = box.file('x.json', {
      mcpServers: {
        off: { command: process.execPath, args: [fixture, 'ok'], disabled: true },
        fx: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'fx.log')] },
      },
    });
    const run = (...args: string[]) =>
      runCli(['-c', config, ...args], { env: box!.env, cwd: box!.cwd });
    const named = await run('tools', '-s', 'off');
    expect(named.code).toBe(1);
    // A --config entry is not one "mcpkit enable" writes: the advice says where to change it.
    expect(named.stderr).toContain(
      `server "off" is disabled in ${config}: remove its "disabled": true there`,
    );
    // The other server alone: listed, exit 0; both: the disabled one still fails the run.
    expect((await run('tools', '-s', 'fx')).code).toBe(0);
    const both = await run('tools', '-s', 'fx', '-s', 'off');
    expect(both.code).toBe(1);
    expect(both.stdout).toMatch(/^fx \(/m);
    // Without -s a disabled server is the config's choice: not a failure of the listing.
    expect((await run('tools')).code).toBe(0);
    // "mcpkit tools fx" is "mcpkit tools -s fx" (it used to ignore the name and list all).
    expect(await run('tools', 'off')).toMatchObject({ code: 1, stdout: '' });
    const one = await run('--json', 'tools', 'fx');
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).servers.map((s: { name: string }) => s.name)).toEqual(['fx']);
    for (const command of ['resources', 'prompts', 'servers']) {
      const unknown = await run(command, 'nosuch');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no server named "nosuch"');
    }
  });

  it('a --config server is refused with where to change it', async () => {
    box = sandbox('mcpkit-cli-enable-');
    const config = box.file('x.json', { mcpServers: { x: { command: 'true' } } });
    const r = await runCli(['-c', config, 'disable', 'x'], { env: box.env, cwd: box.cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `server "x" comes from ${config} (dynamic scope), which mcpkit does not write`,
    );
  });

  it('a local-scope entry (where add writes by default) is disabled and enabled in the state file: its source label names the project, the file is what is compared', async () => {
    box = sandbox('mcpkit-cli-enable-local-');
    const run = (...args: string[]) => runCli(args, { env: box!.env, cwd: box!.cwd });
    const added = await run(
      'add',
      'fx',
      '--',
      process.execPath,
      fixture,
      'ok',
      path.join(box.dir, 'fx.log'),
    );
    expect(added.code, added.stderr).toBe(0);
    const file = path.join(box.home, '.config/mcpkit/projects.json');
    const entryOf = () => JSON.parse(readFileSync(file, 'utf8')).projects[box!.cwd].mcpServers.fx;

    const off = await run('disable', 'fx');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toBe(
      `disabled server "fx" in the local scope (this folder only: ${box!.cwd}) in ${file}\n`,
    );
    expect(entryOf().disabled).toBe(true);
    const on = await run('enable', 'fx');
    expect(on.code, on.stderr).toBe(0);
    expect(entryOf().disabled).toBeUndefined();
  });

  it('the shell, disabling a server for the session only, names its own "enable" command (not the library call enable())', async () => {
    box = sandbox('mcpkit-cli-enable-shell-');
    const config = box.file('x.json', {
      mcpServers: {
        fx: { command: process.execPath, args: [fixture, 'ok', path.join(box.dir, 'fx.log')] },
      },
    });
    const { code, stdout } = await runShellPiped(['-c', config, 'shell'], 'disable fx\nservers\n', {
      env: box.env,
      cwd: box.cwd,
    });
    expect(code).toBe(0);
    expect(stdout).toContain('disabled "fx" for this session only');
    expect(stdout).toContain('type "enable fx" in the shell');
    expect(stdout).not.toContain('call enable(');
  });
});

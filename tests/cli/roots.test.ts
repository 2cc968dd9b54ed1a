import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { everythingEntry } from '../support/everything.js';

/**
 * Roots (issue #12): the working directory by default, `--root <dir>` (repeatable)
 * instead, none with `--no-roots`, as a real server sees them: server-everything's
 * `get-roots-list` asks the client for its roots (`roots/list`) and prints what came back;
 * the tool exists only when the client declares the roots capability.
 */
const probe = fileURLToPath(new URL('../gateway/roots-probe-server.mjs', import.meta.url));

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

function setup() {
  box = sandbox('mcpkit-cli-roots-');
  const config = box.file('servers.json', {
    mcpServers: { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
  });
  return (...args: string[]) =>
    runCli(['--strict-config', '-c', config, ...args], { env: box!.env, cwd: box!.cwd });
}

/** The file URIs the server reported, in its order. */
const uris = (stdout: string) => [...stdout.matchAll(/URI: (\S+)/g)].map((m) => m[1]);

describe('roots as a real server sees them', () => {
  it('default: the working directory is the one root', async () => {
    const cli = setup();
    const r = await cli('call', 'everything', 'get-roots-list', '{}');
    expect(r.code, r.stderr).toBe(0);
    expect(uris(r.stdout)).toEqual([pathToFileURL(box!.cwd).href]);
  });

  it('--root twice: both directories (relative ones resolved against the working directory), and not the working directory', async () => {
    const cli = setup();
    mkdirSync(path.join(box!.cwd, 'src'));
    const r = await cli(
      '--root',
      'src',
      '--root',
      box!.home,
      'call',
      'everything',
      'get-roots-list',
      '{}',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(uris(r.stdout)).toEqual([
      pathToFileURL(path.join(box!.cwd, 'src')).href,
      pathToFileURL(box!.home).href,
    ]);
    expect(r.stdout).toContain('(2 total)');
  });

  it('--no-roots: no roots capability, so the server offers no roots tool', async () => {
    const cli = setup();
    const tools = await cli('--no-roots', 'tools');
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toContain('get-sum');
    expect(tools.stdout).not.toContain('get-roots-list');
    const withRoots = await cli('tools');
    expect(withRoots.stdout).toContain('get-roots-list');
  });

  it('doctor declares the capabilities and roots that call does (doctor connected without roots: server-filesystem then keeps other directories than under call)', async () => {
    box = sandbox('mcpkit-cli-roots-doctor-');
    const config = box.file('servers.json', {
      mcpServers: { probe: { command: process.execPath, args: [probe] } },
    });
    /** What the CLI sent in initialize and answered to roots/list, from its own trace. */
    const declared = async (...args: string[]) => {
      const file = path.join(box!.dir, `${args[0]}.jsonl`);
      const r = await runCli(['--strict-config', '-c', config, '--trace', file, ...args], {
        env: box!.env,
        cwd: box!.cwd,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const init = lines.find((l) => l.direction === 'send' && l.message.method === 'initialize');
      const asked = lines.find(
        (l) => l.direction === 'receive' && l.message.method === 'roots/list',
      );
      const answer = lines.find(
        (l) => l.direction === 'send' && asked && l.message.id === asked.message.id,
      );
      return {
        capabilities: init.message.params.capabilities,
        roots: answer?.message.result.roots,
      };
    };
    // The probe asks for roots as soon as it is initialized; `roots` waits for that answer.
    const call = await declared('call', 'probe', 'roots');
    const doctor = await declared('doctor');
    expect(call.roots).toEqual([
      { uri: pathToFileURL(box.cwd).href, name: path.basename(box.cwd) },
    ]);
    expect(call.capabilities.roots).toBeDefined();
    expect(doctor.capabilities).toEqual(call.capabilities);
    expect(doctor.roots).toEqual(call.roots);
  });
});

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bin,
  killLeftovers,
  processesWith,
  runCli,
  type Sandbox,
  sandbox,
  waitFor,
} from '../hostile/cli-harness.js';
import { type ProcessEntry, processTable } from '../support/process-table.js';

/**
 * A gateway never reaches itself (issue finding 3). SERVE.md's own Claude Desktop snippet,
 * imported, put `mcpkit serve` among the servers of `mcpkit serve`, which started itself
 * again and again (86 processes after 8 s). An entry that plainly runs `mcpkit serve` is
 * skipped by every command; one that hides it (`sh -c`) is stopped by the marker its
 * children inherit.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));
const serveDoc = fileURLToPath(new URL('../../apps/cli/SERVE.md', import.meta.url));

let box: Sandbox | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
  if (box) {
    const left = processesWith(box.dir);
    // A loop left behind would keep growing: gone before the assertion reports it.
    killLeftovers(box.dir);
    expect(left).toEqual([]);
  }
  box?.[Symbol.dispose]();
  box = undefined;
});

/** The Claude Desktop config SERVE.md tells the user to write, as it is in the file. */
function serveDocClaudeDesktopSnippet(): string {
  const doc = readFileSync(serveDoc, 'utf8');
  const at = doc.indexOf('Claude Desktop (`claude_desktop_config.json`):');
  const block = /```json\n([\s\S]*?)```/.exec(doc.slice(at));
  if (at < 0 || !block) throw new Error('SERVE.md has no Claude Desktop snippet');
  return block[1]!;
}

/** Every process below `pid`. */
function descendants(pid: number): ProcessEntry[] {
  const table = processTable();
  const out: ProcessEntry[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.pop()!;
    for (const p of table)
      if (p.ppid === parent) {
        out.push(p);
        queue.push(p.pid);
      }
  }
  return out;
}

/** `mcpkit serve` (the built CLI) over stdio with a client connected to it. */
async function serve(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  let stderr = '';
  const transport = new StdioTransport({
    command: process.execPath,
    args: [bin, ...args, 'serve'],
    env: env as Record<string, string>,
    inheritEnv: 'none',
    cwd,
    name: 'gateway',
    onstderr: (text) => {
      stderr += text;
    },
  });
  const client = new McpClient({ name: 'self-test', era: 'legacy', eraCache: false });
  await client.connect(transport);
  closers.push(() => client.close());
  return { client, pid: transport.pid!, stderr: () => stderr };
}

describe('a gateway never reaches itself', () => {
  it("SERVE.md's Claude Desktop snippet imported: import warns, servers and list show it skipped with the reason, serve never starts it (the process count stays bounded)", async () => {
    box = sandbox('mcpkit-cli-gateway-self-');
    // `mcpkit` on PATH, as an installed CLI is.
    const binDir = path.join(box.dir, 'bin');
    mkdirSync(binDir);
    const shim = path.join(binDir, 'mcpkit');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
    chmodSync(shim, 0o755);
    const env = { ...box.env, PATH: `${binDir}:${process.env.PATH}` };
    const desktop = path.join(box.home, '.config/Claude/claude_desktop_config.json');
    mkdirSync(path.dirname(desktop), { recursive: true });
    writeFileSync(desktop, serveDocClaudeDesktopSnippet());
    const run = (...args: string[]) => runCli(args, { env, cwd: box!.cwd });

    const imported = await run('import', '--from', 'claude-desktop');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('imported "mcpkit"');
    expect(imported.stderr).toContain(
      'mcpkit: warning: "mcpkit" is imported, but it runs "mcpkit serve", this gateway itself',
    );
    const added = await run(
      'add',
      'fx',
      '--',
      process.execPath,
      fixture,
      'ok',
      `${box.dir}/fx.log`,
    );
    expect(added.code, added.stderr).toBe(0);

    const servers = await run('servers');
    expect(servers.code, servers.stdout + servers.stderr).toBe(0);
    expect(servers.stdout).toMatch(
      /^mcpkit +not started: server "mcpkit" is skipped: it runs "mcpkit serve", this gateway itself/m,
    );
    expect(servers.stdout).toMatch(/^fx +connected/m);
    const json = JSON.parse((await run('--json', 'servers')).stdout);
    expect(json.servers.find((s: { name: string }) => s.name === 'mcpkit')).toMatchObject({
      status: 'skipped',
    });
    const list = await run('list');
    expect(list.stdout).toMatch(/^mcpkit +local +it runs "mcpkit serve", this gateway itself/m);

    const gateway = await serve([], env, box.cwd);
    const tools = (await gateway.client.listTools()).map((t) => t.name);
    expect(tools).toContain('fx__echo');
    expect(tools.some((t) => t.startsWith('mcpkit__'))).toBe(false);
    expect(gateway.stderr()).toContain(
      'mcpkit serve: server "mcpkit" is skipped: it runs "mcpkit serve", this gateway itself',
    );
    // Below the gateway: its one real backend, and no second gateway.
    const below = descendants(gateway.pid);
    expect(below.map((p) => p.cmdline)).toEqual([expect.stringContaining(fixture)]);
  });

  it('an entry that hides "serve" behind sh -c is stopped by the marker: the child gateway refuses (it finds itself in MCPKIT_GATEWAY_CHAIN), the parent keeps its other server', async () => {
    box = sandbox('mcpkit-cli-gateway-chain-');
    const config = path.join(box.dir, 'servers.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          fx: { command: process.execPath, args: [fixture, 'ok', `${box.dir}/fx.log`] },
          loop: {
            command: 'sh',
            args: [
              '-c',
              `exec "${process.execPath}" "${bin}" --strict-config -c "${config}" serve`,
            ],
          },
        },
      }),
    );
    const gateway = await serve(['-v', '--strict-config', '-c', config], box.env, box.cwd);
    await waitFor(
      () => gateway.stderr().includes('mcpkit serve: loop: failed'),
      'the loop backend to fail',
    );
    expect(gateway.stderr()).toContain(
      '[loop] mcpkit serve: not started: this gateway already runs above itself (MCPKIT_GATEWAY_CHAIN holds its identity',
    );
    expect((await gateway.client.listTools()).map((t) => t.name)).toContain('fx__echo');
    // No gateway below the gateway ever has one of its own.
    for (const p of descendants(gateway.pid).filter((d) => d.cmdline.includes(' serve')))
      expect(descendants(p.pid).filter((d) => d.cmdline.includes(' serve'))).toEqual([]);
  });
});

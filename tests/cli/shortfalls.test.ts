import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';

/**
 * The shortfalls listed at the top of issue #12, each run against the built CLI
 * (`pnpm turbo run build --filter mcpkit...` first). Before the CLI ran on the manager each
 * of these failed: warnings vanished, hints named library knobs, an unknown tool printed
 * only the server's words, ECONNREFUSED and HTTP 5xx gave no next step, a usage error
 * printed 38 lines, and 30 servers started at once.
 */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
let http: Server | undefined;
afterEach(async () => {
  if (http) await new Promise((r) => http!.close(r));
  http = undefined;
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

function servers(entries: Record<string, [string, ...string[]] | { url: string }>) {
  box = sandbox('mcpkit-cli-shortfalls-');
  const log = path.join(box.dir, 'events.log');
  const mcpServers: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(entries))
    mcpServers[name] = Array.isArray(spec)
      ? { command: process.execPath, args: [fixture, spec[0], log, ...spec.slice(1)] }
      : { type: 'http', url: spec.url };
  const config = box.file('servers.json', { mcpServers });
  const cli = (...args: string[]) =>
    runCli(['--strict-config', '-c', config, ...args], { env: box!.env, cwd: box!.cwd });
  return { cli, log };
}

describe('the shortfalls of issue #12, against the built CLI', () => {
  it('warnings no longer vanish: -v shows garbage stdout lines and stderr, prefixed with the server name', async () => {
    const { cli } = servers({ noisy: ['garbage'], chatty: ['stderr'] });
    const quiet = await cli('tools');
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain('not JSON');
    const loud = await cli('-v', 'tools');
    expect(loud.code).toBe(0);
    expect(loud.stderr).toMatch(/^\[noisy\] warning: .*this is not JSON/m);
    expect(loud.stderr).toMatch(/^\[chatty\] starting up: config read$/m);
    expect(loud.stdout).toContain('noisy (4 tools)');
  });

  it("a request timeout names the CLI's --timeout flag, not the library's timeoutMs", async () => {
    const { cli } = servers({ slow: ['slow-call'] });
    const r = await cli('--timeout', '300', 'call', 'slow', 'echo', '{}');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('server "slow"');
    expect(r.stderr).toContain('--timeout <ms>');
    expect(r.stderr).not.toMatch(/timeoutMs|maxMessageBytes/);
  });

  it('an unknown tool on a 2025 server: the server named, its words, and where to look, on stderr', async () => {
    const { cli } = servers({ x: ['ok'] });
    const r = await cli('call', 'x', 'nope', '{}');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('server "x" has no tool "nope"');
    expect(r.stderr).toContain('Unknown tool: nope');
    expect(r.stderr).toContain('see "mcpkit tools -s x"');
  });

  it('ECONNREFUSED and HTTP 5xx each come with a next step', async () => {
    http = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    await new Promise<void>((r) => http!.listen(0, '127.0.0.1', () => r()));
    const port = (http.address() as AddressInfo).port;
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { cli } = servers({
      refused: { url: `http://127.0.0.1:${closedPort}/mcp` },
      broken: { url: `http://127.0.0.1:${port}/mcp` },
    });
    const r = await cli('--json', 'servers');
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout).servers as Array<Record<string, string>>;
    const refused = rows.find((row) => row.name === 'refused')!;
    const broken = rows.find((row) => row.name === 'broken')!;
    expect(refused.status).toBe('failed');
    expect(refused.next).toMatch(
      /check that the server at http:\/\/127\.0\.0\.1:\d+\/mcp is running/,
    );
    expect(broken.status).toBe('failed');
    expect(broken.next).toContain('HTTP 503');
    const table = await cli('servers');
    expect(table.stdout).toMatch(/refused\s+failed: server "refused": .*ECONNREFUSED/);
    expect(table.stdout).toMatch(/next: check that the server at/);
  });

  it('a usage error is one line and says where to read more', async () => {
    const { cli } = servers({ x: ['ok'] });
    const r = await cli('call', 'x');
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'mcpkit: usage: mcpkit call <server> <tool> [json-args | - | key=value...] (see "mcpkit call --help")',
    ]);
    const help = await cli('call', '--help');
    expect(help.stdout).toContain('usage: mcpkit call <server> <tool>');
  });

  it('30 stdio servers: never more than 3 in their handshake at once, all connected', async () => {
    const entries: Record<string, ['ok']> = {};
    for (let i = 1; i <= 30; i++) entries[`s${String(i).padStart(2, '0')}`] = ['ok'];
    const { cli, log } = servers(entries);
    const r = await cli('--json', 'servers');
    expect(r.code, r.stderr).toBe(0);
    expect(
      JSON.parse(r.stdout).servers.filter((s: { status: string }) => s.status === 'connected'),
    ).toHaveLength(30);
    let starting = 0;
    let most = 0;
    for (const event of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
      starting += event === 'start' ? 1 : -1;
      most = Math.max(most, starting);
    }
    // All at once (the CLI before the manager) would reach 30.
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
  });
});

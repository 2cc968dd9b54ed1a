import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { type FaultMode, faultServer, listRequests } from '../manager/helpers.js';

/**
 * A server whose list failed or held malformed tools, through the built CLI with real fault
 * fixtures (each logs every tools/list it is sent): the failure is the server's state
 * (degraded, exit 1) in `servers`, `tools`, `get` and `doctor`; a failing list is asked
 * once per command; a call that fails is the server's error, not "has no tool".
 */
let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

function config(b: Sandbox, servers: Record<string, FaultMode>): string {
  const entries: Record<string, unknown> = {};
  for (const [name, mode] of Object.entries(servers))
    entries[name] = {
      command: process.execPath,
      args: [faultServer, mode, path.join(b.dir, `${name}.log`)],
    };
  return b.file('servers.json', { mcpServers: entries });
}

function fresh(): Sandbox {
  box = sandbox('mcpkit-cli-degraded-');
  return box;
}

const cli = (b: Sandbox, args: string[]) => runCli(args, { env: b.env, cwd: b.cwd });

describe('a failing list is asked once per command', () => {
  it('--json tools over 22 servers: each server, failing or not, gets exactly one tools/list', async () => {
    const b = fresh();
    const servers: Record<string, FaultMode> = { bad1: 'list-error', bad2: 'list-error' };
    for (let i = 0; i < 20; i++) servers[`ok${i}`] = 'ok';
    const file = config(b, servers);
    const r = await cli(b, ['--strict-config', '-c', file, '--json', 'tools']);
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as {
      servers: Array<{ name: string }>;
      errors: Array<{ server: string; error: string }>;
    };
    expect(out.servers).toHaveLength(20);
    expect(out.errors.map((e) => e.server)).toEqual(['bad1', 'bad2']);
    expect(out.errors[0]!.error).toContain('the tool registry is unavailable');
    const asked = Object.fromEntries(
      Object.keys(servers).map((name) => [name, listRequests(path.join(b.dir, `${name}.log`))]),
    );
    expect(asked).toEqual(Object.fromEntries(Object.keys(servers).map((name) => [name, 1])));
  });
});

describe('a failed list is part of the server state', () => {
  it('servers: the row is degraded with the failure and its next step, exit 1; --json says the same', async () => {
    const b = fresh();
    const file = config(b, { broken: 'list-error', fine: 'ok' });
    const r = await cli(b, ['--strict-config', '-c', file, 'servers']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^broken\s+degraded\s+stdio\s+\d{4}-\d{2}-\d{2}\s+\?\s+\d+ ms/m);
    expect(r.stdout).toMatch(/^fine\s+connected\s+stdio\s+\d{4}-\d{2}-\d{2}\s+3\s+/m);
    expect(r.stdout).toContain(
      '    "tools/list" failed: the tool registry is unavailable (-32603)\n    next: run the command again',
    );
    const json = await cli(b, ['--strict-config', '-c', file, '--json', 'servers']);
    expect(json.code).toBe(1);
    const rows = (JSON.parse(json.stdout) as { servers: Array<Record<string, unknown>> }).servers;
    const broken = rows.find((s) => s.name === 'broken')!;
    expect(broken.status).toBe('degraded');
    expect(broken.tools).toBeUndefined();
    expect(broken.degraded).toEqual([
      {
        list: 'tools',
        error: '"tools/list" failed: the tool registry is unavailable (-32603)',
        code: 'MCPKIT_RPC_ERROR',
        rpcCode: -32603,
        next: expect.stringContaining('run the command again'),
      },
    ]);
    expect(rows.find((s) => s.name === 'fine')).toMatchObject({ status: 'connected', tools: 3 });
  });

  it('get and doctor: degraded, with the failure and the next step, exit 1', async () => {
    const b = fresh();
    const file = config(b, { broken: 'list-error' });
    const get = await cli(b, ['--strict-config', '-c', file, 'get', 'broken']);
    expect(get.code, get.stderr).toBe(1);
    expect(get.stdout).toMatch(/^state: {4}degraded, protocol /m);
    expect(get.stdout).toContain('"tools/list" failed: the tool registry is unavailable');
    const doctor = await cli(b, ['--strict-config', '-c', file, '--json', 'doctor']);
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout) as {
      servers: Array<{ name: string; findings: Array<{ check: string; level: string }> }>;
    };
    expect(report.servers[0]!.findings).toContainEqual(
      expect.objectContaining({
        check: 'lists',
        level: 'error',
        message: '"tools/list" failed: the tool registry is unavailable (-32603)',
      }),
    );
  });
});

describe('malformed tools are repaired or left out, one by one', () => {
  it('tools: schemas of only "$schema" (server-gitlab) are repaired, bad tools left out with a warning naming server and tool, exit 0', async () => {
    const b = fresh();
    const file = config(b, { gitlab: 'bad-schemas' });
    const r = await cli(b, ['--strict-config', '-c', file, 'tools']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('gitlab (5 tools)');
    expect(r.stdout).toContain('search_repositories');
    expect(r.stderr).toContain(
      'mcpkit: warning: server "gitlab": 2 tools repaired ("search_repositories", "untyped"): its inputSchema had no "type"; read as "type": "object"',
    );
    expect(r.stderr).toContain('mcpkit: warning: server "gitlab": tool "stringly" left out: ');
    expect(r.stderr).toContain(
      'mcpkit: warning: server "gitlab": tool "#6" left out: it has no name',
    );
    const servers = await cli(b, ['--strict-config', '-c', file, 'servers']);
    expect(servers.code).toBe(0);
    expect(servers.stdout).toMatch(/^gitlab\s+connected\s+.*\s5\s+/m);
    expect(servers.stdout).toContain('    warning: server "gitlab": tool "stringly" left out: ');
  });
});

describe('call: "has no tool" only when it has none', () => {
  it('a tool that fails on the network (its list failed) is the server error; a tool the server says it lacks has none', async () => {
    const b = fresh();
    const file = config(b, { gitlab: 'list-error' });
    const net = await cli(b, ['--strict-config', '-c', file, 'call', 'gitlab', 'net', 'q=x']);
    expect(net.code).toBe(1);
    expect(net.stderr).not.toContain('has no tool');
    expect(net.stderr).toContain(
      `mcpkit: server "gitlab": its tool "net" failed with the server's own error -32603: fetch failed: getaddrinfo ENOTFOUND gitlab.example`,
    );
    const none = await cli(b, ['--strict-config', '-c', file, 'call', 'gitlab', 'nosuch']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('server "gitlab" has no tool "nosuch"');
  });
});

/** A port on 127.0.0.1 that nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('the real server-gitlab 2025.4.25 (input schemas of only "$schema")', () => {
  it('servers: connected with its 9 tools, the repairs one warning naming them; call: a failure on the network is its own error, not "has no tool"', async () => {
    const b = fresh();
    const entry = path.join(
      path.dirname(
        createRequire(import.meta.url).resolve('@modelcontextprotocol/server-gitlab/package.json'),
      ),
      'dist/index.js',
    );
    // Its API on a closed loopback port: a call fails the way it does offline, without a network.
    const api = `http://127.0.0.1:${await closedPort()}/api/v4`;
    const file = b.file('servers.json', {
      mcpServers: {
        gitlab: {
          command: process.execPath,
          args: [entry],
          env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'test-token', GITLAB_API_URL: api },
        },
      },
    });
    const servers = await cli(b, ['--strict-config', '-c', file, '--json', 'servers']);
    expect(servers.code, servers.stderr).toBe(0);
    const [row] = (JSON.parse(servers.stdout) as { servers: Array<Record<string, unknown>> })
      .servers;
    expect(row).toMatchObject({ name: 'gitlab', status: 'connected', tools: 9 });
    expect(row!.toolIssues).toHaveLength(9);
    const text = await cli(b, ['--strict-config', '-c', file, 'servers']);
    expect(text.stdout).toContain(
      '    warning: server "gitlab": 9 tools repaired ("create_or_update_file", "search_repositories", "create_repository", "get_file_contents", "push_files", "create_issue", "create_merge_request", "fork_repository", 1 more): its inputSchema had no "type"; read as "type": "object"',
    );
    expect(row!.toolIssues).toContainEqual({
      tool: 'search_repositories',
      action: 'repaired',
      reason: 'its inputSchema had no "type"; read as "type": "object"',
    });
    const call = await cli(b, [
      '--strict-config',
      '-c',
      file,
      'call',
      'gitlab',
      'search_repositories',
      'search=x',
    ]);
    expect(call.code).toBe(1);
    expect(call.stderr).not.toContain('has no tool');
    expect(call.stderr).toMatch(
      /^mcpkit: server "gitlab": its tool "search_repositories" failed with the server's own error -32603: .*ECONNREFUSED/m,
    );
  });
});

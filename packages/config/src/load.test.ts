import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { loadConfig, withConnectors } from './load.js';
import { approve, approveAll, reject, resetApprovals, updateApprovals } from './local-state.js';
import { configPaths } from './paths.js';
import { approvalRecord } from './signature.js';

const trees: string[] = [];
afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A temporary machine: a home folder, a managed folder and a repository with nested folders. */
function machine() {
  const root = mkdtempSync(path.join(tmpdir(), 'mcpkit-config-'));
  trees.push(root);
  const home = path.join(root, 'home');
  const repo = path.join(root, 'work', 'repo');
  const cwd = path.join(repo, 'packages', 'app');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { XDG_CONFIG_HOME: path.join(home, '.config'), TOKEN: 't0k' };
  const paths = {
    ...configPaths({ home, env, platform: 'linux' }),
    managedServers: path.join(root, 'etc', 'managed-mcp.json'),
    managedSettings: path.join(root, 'etc', 'managed-settings.json'),
  };
  const write = (file: string, value: unknown) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  };
  const load = (more: Partial<Parameters<typeof loadConfig>[0]> = {}) =>
    loadConfig({ cwd, home, env, platform: 'linux', paths, ...more });
  return { root, home, repo, cwd, env, paths, write, load };
}

describe('loadConfig over a temporary tree', () => {
  it('walks up from the working directory; the closer .mcp.json wins', async () => {
    const m = machine();
    m.write(path.join(m.root, 'work', '.mcp.json'), {
      mcpServers: { shared: { command: 'outer' }, top: { command: 'top' } },
    });
    m.write(path.join(m.repo, '.mcp.json'), { mcpServers: { shared: { command: 'repo' } } });
    m.write(
      path.join(m.cwd, '.mcp.json'),
      '// the closest file\n{ "mcpServers": { "shared": { "command": "app" } } }',
    );
    const r = await m.load();
    expect(
      r.servers.map((s) => [s.name, (s.config as { command: string }).command, s.source]),
    ).toEqual([
      ['shared', 'app', path.join(m.cwd, '.mcp.json')],
      ['top', 'top', path.join(m.root, 'work', '.mcp.json')],
    ]);
    expect(r.servers.every((s) => s.status === 'pending-approval')).toBe(true);
    expect(r.files.filter((f) => f.scope === 'project' && f.found)).toHaveLength(3);
  });

  it('reads every scope: user, project, local (private state), dynamic file and JSON string, plugins', async () => {
    const m = machine();
    m.write(m.paths.userServers, {
      mcpServers: { u: { command: 'user' }, both: { command: 'user' } },
    });
    m.write(path.join(m.repo, '.mcp.json'), {
      mcpServers: { p: { command: 'project' }, both: { command: 'project' } },
    });
    m.write(m.paths.localState, {
      projects: {
        [m.cwd]: {
          mcpServers: { l: { command: 'local' } },
          approvals: {
            servers: {
              p: approvalRecord(
                { type: 'stdio', command: 'project' },
                path.join(m.repo, '.mcp.json'),
              ),
              both: approvalRecord(
                { type: 'stdio', command: 'project' },
                path.join(m.repo, '.mcp.json'),
              ),
            },
          },
        },
      },
    });
    m.write(path.join(m.root, 'dyn.json'), {
      mcpServers: { d: { command: 'dyn-file', args: ['${TOKEN}'] } },
    });
    const r = await m.load({
      dynamic: [
        { file: path.join(m.root, 'dyn.json') },
        { json: '{"mcpServers":{"j":{"command":"dyn-json"}}}' },
      ],
      plugins: [{ name: 'tools', mcpServers: { pl: { command: 'plugin' } } }],
    });
    expect(r.errors.map(formatDiagnostic)).toEqual([]);
    expect(r.servers.map((s) => `${s.name}:${s.scope}:${s.status}`)).toEqual([
      'both:project:enabled',
      'd:dynamic:enabled',
      'j:dynamic:enabled',
      'l:local:enabled',
      'p:project:enabled',
      'pl:plugin:enabled',
      'u:user:enabled',
    ]);
    expect((r.servers.find((s) => s.name === 'd')!.config as { args: string[] }).args).toEqual([
      't0k',
    ]);
  });

  it('strict mode uses only the dynamic configs', async () => {
    const m = machine();
    m.write(m.paths.userServers, { mcpServers: { u: { command: 'user' } } });
    const r = await m.load({
      strict: true,
      dynamic: [{ json: '{"mcpServers":{"d":{"command":"x"}}}' }],
    });
    expect(r.servers.map((s) => s.name)).toEqual(['d']);
  });

  it('a managed file is exclusive, and managed settings policy applies', async () => {
    const m = machine();
    m.write(m.paths.userServers, { mcpServers: { mine: { command: 'mine' } } });
    m.write(m.paths.managedServers, {
      mcpServers: { corp: { command: 'corp-tool' }, other: { command: 'other' } },
    });
    m.write(m.paths.managedSettings, { allowedMcpServers: [{ serverCommand: ['corp-tool'] }] });
    m.write(m.paths.userSettings, {
      allowedMcpServers: [{ serverName: 'other' }],
      deniedMcpServers: [{ serverName: 'corp' }],
    });
    const r = await m.load();
    expect(r.servers.map((s) => `${s.name}:${s.status}`)).toEqual([
      'corp:blocked',
      'other:blocked',
    ]);
    // The user's deny list still applies (deny always wins); the managed allow list replaces the user's.
    expect(r.servers[0]!.reason).toContain('denied by deniedMcpServers[0] (serverName "corp")');
    expect(r.servers[1]!.reason).toContain('matches no serverCommand entry');
    expect(r.dropped.map((d) => `${d.name}:${d.because}`)).toEqual(['mine:managed-exclusive']);
  });

  it('every bad file is reported with its location; good files still load', async () => {
    const m = machine();
    m.write(m.paths.userServers, '{ "mcpServers": { "a": { "command": "x" }, }');
    m.write(path.join(m.cwd, '.mcp.json'), {
      mcpServers: { gh: { type: 'http', url: 'nope' }, ok: { command: 'ok' } },
    });
    m.write(m.paths.userSettings, { deniedMcpServers: [{ serverColor: 'red' }] });
    const r = await m.load();
    // The broken settings file fails closed: the good server is listed but blocked.
    expect(r.servers.map((s) => `${s.name}:${s.status}`)).toEqual(['ok:blocked']);
    expect(r.errors.map(formatDiagnostic)).toEqual([
      `${m.paths.userSettings}: deniedMcpServers[0]: expected exactly one of { "serverName": "…" }, { "serverCommand": ["…"] } or { "serverUrl": "…" }; until this is fixed no server starts`,
      `${m.paths.userServers}:1:45: not valid JSON: expected "}"`,
      `${path.join(m.cwd, '.mcp.json')}: mcpServers.gh.url: expected an http(s) URL`,
    ]);
  });

  it('connectors join in a second phase and yield to manual entries', async () => {
    const m = machine();
    m.write(m.paths.userServers, {
      mcpServers: { gh: { type: 'http', url: 'https://api.example/mcp' } },
    });
    const first = await m.load();
    const second = withConnectors(first.input, {
      'gh-connector': { type: 'http', url: 'https://api.example/mcp' },
      slack: { type: 'http', url: 'https://slack.example/mcp' },
    });
    expect(second.servers.map((s) => `${s.name}:${s.scope}`)).toEqual([
      'gh:user',
      'slack:connector',
    ]);
    expect(second.dropped[0]).toMatchObject({
      name: 'gh-connector',
      because: 'duplicate',
      by: { name: 'gh' },
    });
  });
});

describe('approvals', () => {
  it('approve, reject, approve-all and reset live in private state outside the repository', async () => {
    const m = machine();
    m.write(path.join(m.repo, '.mcp.json'), {
      mcpServers: { a: { command: 'a' }, b: { command: 'b' } },
    });
    const status = async () => (await m.load()).servers.map((s) => `${s.name}:${s.status}`);
    const { localState } = m.paths;
    const { readText, writeTextAtomic } = (await import('./fs.js')).nodeFs;
    const fs = { readText, writeTextAtomic };
    expect(await status()).toEqual(['a:pending-approval', 'b:pending-approval']);
    const servers = (await m.load()).servers;
    await updateApprovals(fs, localState, m.cwd, approve(servers.filter((s) => s.name === 'a')));
    await updateApprovals(fs, localState, m.cwd, reject(['b']));
    expect(await status()).toEqual(['a:enabled', 'b:rejected']);
    await updateApprovals(fs, localState, m.cwd, approveAll(servers));
    expect(await status()).toEqual(['a:enabled', 'b:enabled']);
    await updateApprovals(fs, localState, m.cwd, resetApprovals);
    expect(await status()).toEqual(['a:pending-approval', 'b:pending-approval']);
    expect(localState.startsWith(m.home)).toBe(true);
    expect(statSync(localState).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(localState, 'utf8')).projects[m.cwd]).toEqual({});
  });
});

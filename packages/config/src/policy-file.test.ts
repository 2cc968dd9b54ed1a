import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { type ConfigFs, nodeFs } from './fs.js';
import { loadConfig } from './load.js';
import { configPaths } from './paths.js';
import { parsePolicyFile } from './policy-file.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A home with a user server `evil`, a managed folder of our own, and a project. */
function machine() {
  const root = mkdtempSync(path.join(tmpdir(), 'mcpkit-policy-'));
  roots.push(root);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'repo');
  mkdirSync(cwd, { recursive: true });
  const env = { XDG_CONFIG_HOME: path.join(home, '.config') };
  const paths = {
    ...configPaths({ home, env, platform: 'linux' }),
    managedServers: path.join(root, 'etc', 'managed-mcp.json'),
    managedSettings: path.join(root, 'etc', 'managed-settings.json'),
  };
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  write(
    paths.userServers,
    JSON.stringify({ mcpServers: { evil: { command: 'evil' }, good: { command: 'good' } } }),
  );
  const load = (fs?: ConfigFs) =>
    loadConfig({ cwd, home, env, platform: 'linux', paths, ...(fs ? { fs } : {}) });
  return { root, paths, write, load };
}

const BROKEN_SETTINGS: Array<[string, string]> = [
  ['malformed JSONC', '{"deniedMcpServers":[{"serverName":"evil"}],} x'],
  ['a deny list given as an object', '{"deniedMcpServers":{"serverName":"evil"}}'],
  ['an entry with a misspelt key', '{"deniedMcpServers":[{"servername":"evil"}]}'],
  ['an entry with an extra key', '{"deniedMcpServers":[{"serverName":"evil","serverUrl":"x"}]}'],
  ['a misspelt list name', '{"deniedMcpServer":[{"serverName":"evil"}]}'],
  ['a repeated list key', '{"deniedMcpServers":[{"serverName":"evil"}],"deniedMcpServers":[]}'],
  ['an unparsable URL rule', '{"deniedMcpServers":[{"serverUrl":"http://[::1"}]}'],
  ['not an object', '[{"serverName":"evil"}]'],
  ['truncated', '{"deniedMcpServers":[{"serverName":"ev'],
];

describe('policy files fail closed (issue #10 finding 1)', () => {
  for (const which of ['userSettings', 'managedSettings'] as const) {
    it.each(BROKEN_SETTINGS)(
      `${which} with %s: every server is blocked, with an error naming the file`,
      async (_, text) => {
        const m = machine();
        m.write(m.paths[which], text);
        const r = await m.load();
        expect(r.servers.map((s) => `${s.name}:${s.status}`)).toEqual([
          'evil:blocked',
          'good:blocked',
        ]);
        expect(r.servers[0]!.reason).toContain(m.paths[which]);
        expect(r.servers[0]!.reason).toContain('fix the file or remove it');
        expect(r.errors.map(formatDiagnostic).join('\n')).toContain(m.paths[which]);
        expect(r.errors.some((d) => d.message.includes('no server starts'))).toBe(true);
      },
    );
  }

  it('a settings file that cannot be read (EACCES, through a mock fs: root reads anything) blocks every server', async () => {
    const m = machine();
    m.write(m.paths.userSettings, '{}');
    const eacces: ConfigFs = {
      ...nodeFs,
      readText: (file) =>
        file === m.paths.userSettings
          ? Promise.reject(
              Object.assign(new Error(`EACCES: permission denied, open '${file}'`), {
                code: 'EACCES',
              }),
            )
          : nodeFs.readText(file),
    };
    const r = await m.load(eacces);
    expect(r.servers.every((s) => s.status === 'blocked')).toBe(true);
    expect(r.errors.map(formatDiagnostic).join('\n')).toContain('EACCES');
  });

  it.each([
    ['a folder', (file: string) => mkdirSync(file, { recursive: true })],
    ['too large', (file: string) => writeFileSync(file, ' '.repeat(10 * 1024 * 1024 + 1))],
  ])('a settings file that is %s blocks every server', async (_, make) => {
    const m = machine();
    mkdirSync(path.dirname(m.paths.userSettings), { recursive: true });
    make(m.paths.userSettings);
    const r = await m.load();
    expect(r.servers.every((s) => s.status === 'blocked')).toBe(true);
    expect(r.errors[0]!.source).toBe(m.paths.userSettings);
  });

  it('an unreadable managed-mcp.json no longer drops managed-only mode: nothing starts', async () => {
    const m = machine();
    mkdirSync(m.paths.managedServers, { recursive: true });
    const r = await m.load();
    expect(r.servers.map((s) => `${s.name}:${s.status}`)).toEqual(['evil:blocked', 'good:blocked']);
    expect(r.servers[0]!.reason).toContain(m.paths.managedServers);
    expect(r.errors[0]!.source).toBe(m.paths.managedServers);
  });

  it('a malformed managed-mcp.json keeps managed-only mode: no user server is used', async () => {
    const m = machine();
    m.write(m.paths.managedServers, '{"mcpServers": {');
    const r = await m.load();
    expect(r.servers).toEqual([]);
    expect(r.dropped.map((d) => d.because)).toEqual(['managed-exclusive', 'managed-exclusive']);
  });

  it('"registries" (the MCP Registries the CLI searches) and "pypiIndexUrl" are known settings: no "unknown setting" warning', () => {
    const r = parsePolicyFile(
      '{"registries":["https://registry.example.com"],"pypiIndexUrl":"https://pypi.example.com/simple"}',
      's.json',
    );
    expect(r.unusable).toBeUndefined();
    expect(r.diagnostics).toEqual([]);
  });

  it('"identityProvider" (the enterprise IdP of "oauth.xaa" entries, read by the CLI) is a known setting: no warning', () => {
    const r = parsePolicyFile(
      '{"identityProvider":{"issuer":"https://idp.example.com","clientId":"c"}}',
      's.json',
    );
    expect(r.unusable).toBeUndefined();
    expect(r.diagnostics).toEqual([]);
  });

  it('a good file still works, and an unknown setting that is not about servers is only a warning', () => {
    const r = parsePolicyFile(
      '{"deniedMcpServers":[{"serverName":"evil"}],"theme":"dark"}',
      's.json',
    );
    expect(r.unusable).toBeUndefined();
    expect(r.policy?.deniedMcpServers).toEqual([{ serverName: 'evil' }]);
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([
      's.json: theme: unknown setting; ignored',
    ]);
  });
});

describe('the approvals state file (issue #10 finding 12)', () => {
  it('an unreadable projects.json is a warning; its approvals count as not given; other servers load', async () => {
    const m = machine();
    m.write(
      path.join(m.root, 'repo', '.mcp.json'),
      JSON.stringify({ mcpServers: { p: { command: 'p' } } }),
    );
    mkdirSync(m.paths.localState, { recursive: true });
    const r = await m.load();
    expect(r.errors).toEqual([]);
    expect(r.servers.map((s) => `${s.name}:${s.status}`)).toEqual([
      'evil:enabled',
      'good:enabled',
      'p:pending-approval',
    ]);
    expect(r.warnings.map(formatDiagnostic).join('\n')).toContain(
      `${m.paths.localState}: is a folder`,
    );
  });

  it('a malformed projects.json is a warning too, with its line', async () => {
    const m = machine();
    m.write(m.paths.localState, '{\n  "projects": {');
    const r = await m.load();
    const w = r.warnings.find((d) => d.source === m.paths.localState);
    expect(w?.line).toBe(2);
    expect(w?.message).toContain('approvals count as not given');
  });
});

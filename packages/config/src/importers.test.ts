import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importServers } from './importers/index.js';

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url)), 'utf8');

describe('importers', () => {
  it('Claude Desktop', () => {
    const r = importServers('claude-desktop', fixture('claude_desktop_config.json'));
    expect(r.servers).toEqual({
      filesystem: {
        command: 'npx',
        args: [
          '-y',
          '@modelcontextprotocol/server-filesystem',
          '/Users/me/Desktop',
          '/Users/me/Downloads',
        ],
      },
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '<token>' },
      },
    });
    expect(r.skipped).toEqual([]);
  });

  it("Claude Code: user servers, and a project's local servers when asked", () => {
    const user = importServers('claude-code', fixture('claude.json'));
    expect(Object.keys(user.servers)).toEqual(['memory']);
    const withProject = importServers('claude-code', fixture('claude.json'), {
      project: '/home/me/src/shop',
    });
    expect(withProject.servers).toMatchObject({
      memory: { type: 'stdio', command: 'npx' },
      sentry: { type: 'http', url: 'https://mcp.sentry.example/mcp' },
      db: {
        type: 'stdio',
        command: 'uvx',
        args: ['mcp-server-postgres', 'postgresql://localhost/shop'],
      },
    });
  });

  it('VS Code: inputs become environment variables, workspace folder resolved, unsupported fields reported', () => {
    const r = importServers('vscode', fixture('vscode-mcp.json'), {
      workspaceFolder: '/home/me/proj',
    });
    expect(r.servers).toEqual({
      Perplexity: {
        type: 'stdio',
        command: 'npx',
        args: ['-y', 'server-perplexity-ask'],
        env: { PERPLEXITY_API_KEY: '${PERPLEXITY_KEY}' },
      },
      fetch: { type: 'stdio', command: 'uvx', args: ['mcp-server-fetch'] },
      github: { type: 'http', url: 'https://api.githubcopilot.example/mcp/' },
      'workspace-files': { command: 'node', args: ['/home/me/proj/tools/server.js'] },
    });
    expect(r.notes.map((n) => `${n.name}: ${n.note}`)).toEqual([
      '*: 1 input(s) declared: each ${input:id} becomes an environment variable',
      'Perplexity: "envFile" dropped: env files are not read; copy the variables into "env"',
      'Perplexity: ${input:perplexity-key} (asked for interactively) became ${PERPLEXITY_KEY}: set that environment variable',
      'workspace-files: "dev" dropped: not part of the .mcp.json format',
    ]);
  });

  it('Cursor: ${env:X} and ${userHome}; a bare URL becomes an http server, with a note', () => {
    const r = importServers('cursor', fixture('cursor-mcp.json'), { home: '/home/me' });
    expect(r.servers).toEqual({
      linear: { url: 'https://mcp.linear.example/sse', type: 'http' },
      docs: { url: 'https://docs.example/mcp', headers: { API_KEY: '${DOCS_KEY}' }, type: 'http' },
      'local-tool': { command: 'python', args: ['/home/me/tools/mcp.py'], env: { DEBUG: '1' } },
    });
    expect(r.notes.filter((n) => n.note.includes('imported as "http"')).map((n) => n.name)).toEqual(
      ['linear', 'docs'],
    );
  });

  it('Cline: timeouts in seconds, transport names, auto-approval dropped', () => {
    const r = importServers('cline', fixture('cline_mcp_settings.json'));
    expect(r.servers).toEqual({
      weather: {
        command: 'node',
        args: ['/home/me/mcp/weather/build/index.js'],
        env: { OPENWEATHER_API_KEY: 'key' },
        timeout: 120000,
      },
      'remote-sse': { url: 'https://example.com/sse', type: 'sse', disabled: true },
      'remote-http': { type: 'http', url: 'https://example.com/mcp' },
    });
    expect(r.notes.map((n) => n.name)).toContain('weather');
  });

  it('Windsurf: serverUrl, ${env:X}; an entry without a command is skipped with the reason', () => {
    const r = importServers('windsurf', fixture('windsurf_mcp_config.json'));
    expect(r.servers.github).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' },
    });
    expect(r.servers.figma).toEqual({
      headers: { Authorization: 'Bearer ${FIGMA_TOKEN}' },
      url: 'https://figma.example/mcp',
      type: 'http',
    });
    expect(r.skipped).toEqual([{ name: 'broken', reason: 'command: is required' }]);
  });

  it('Zed: custom and older command shapes, remote servers; extension servers skipped', () => {
    const r = importServers('zed', fixture('zed-settings.json'));
    expect(r.servers).toEqual({
      'local-mcp-server': { command: 'uv', args: ['run', '/home/me/mcp/main.py'], env: {} },
      'legacy-style': { command: 'node', args: ['server.js'], env: { A: '1' } },
      remote: {
        type: 'http',
        url: 'https://mcp.example/mcp',
        headers: { Authorization: 'Bearer x' },
      },
      off: { command: 'x', disabled: true },
    });
    expect(r.skipped).toEqual([
      {
        name: 'postgres-extension',
        reason: 'provided by a Zed extension: there is no command to import',
      },
    ]);
  });

  it('a file that is not JSON is reported, not thrown', () => {
    const r = importServers('cursor', '{ nope');
    expect(Object.keys(r.servers)).toEqual([]);
    expect(r.skipped[0]!.reason).toMatch(/not valid JSON/);
  });
});

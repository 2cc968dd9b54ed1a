import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCommand } from './config.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const ENV_SECRET = 'sk-env-8c1f0a6b2d9e4f73';
const HEADER_SECRET = 'Bearer hdr-5e2a7c9d1b3f4a60';

async function dryRun(showSecrets: boolean) {
  dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-import-'));
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  const file = path.join(dir, 'claude_desktop_config.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        local: { command: 'node', args: ['s.js'], env: { API_KEY: ENV_SECRET } },
        remote: {
          type: 'http',
          url: 'https://api.example/mcp',
          headers: { Authorization: HEADER_SECRET },
        },
      },
    }),
  );
  let stdout = '';
  let stderr = '';
  const code = await importCommand(
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    { cwd, home, env: {} },
    [file],
    { from: 'claude-code', dryRun: true, showSecrets },
  );
  return { code, stdout, stderr, cwd };
}

describe('mcpkit import --dry-run', () => {
  it('prints env and header values redacted: the names stay, the values do not', async () => {
    const r = await dryRun(false);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('would add "local"');
    expect(r.stdout).toContain('would add "remote"');
    expect(r.stdout).toContain('API_KEY');
    expect(r.stdout).toContain('Authorization');
    expect(r.stdout).not.toContain(ENV_SECRET);
    expect(r.stdout).not.toContain('hdr-5e2a7c9d1b3f4a60');
    // A dry run writes nothing.
    expect(readdirSync(r.cwd)).toEqual([]);
  });

  it('--show-secrets prints them as they are', async () => {
    const r = await dryRun(true);
    expect(r.stdout).toContain(ENV_SECRET);
    expect(r.stdout).toContain(HEADER_SECRET);
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandbox } from './config-sandbox.js';

describe('config files that are not files (issue #10 finding 12)', () => {
  it('.mcp.json as a symlink to /dev/stdin made list hang: now list exits with an error naming it', async () => {
    await using box = sandbox();
    const file = path.join(box.repo, '.mcp.json');
    symlinkSync('/dev/stdin', file);
    // stdin stays an open pipe that nobody writes to: reading it would never end.
    const r = await box.cli(['list'], { openStdin: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('not a regular file');
  });

  it('.mcp.json as a symlink to /dev/zero read 641 MB then crashed: now it is refused as a device', async () => {
    await using box = sandbox();
    const file = path.join(box.repo, '.mcp.json');
    symlinkSync('/dev/zero', file);
    const r = await box.cli(['list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: is a character device, not a regular file`);
  });

  it('.mcp.json as a FIFO: list does not wait for a writer', async () => {
    await using box = sandbox();
    const file = path.join(box.repo, '.mcp.json');
    execFileSync('mkfifo', [file]);
    const r = await box.cli(['list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}: is a FIFO`);
  });

  it('import of a file that is a symlink to /dev/zero is refused, not read', async () => {
    await using box = sandbox();
    const file = path.join(box.repo, 'claude_desktop_config.json');
    symlinkSync('/dev/zero', file);
    const r = await box.cli(['import', '--from', 'claude-desktop', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} is a character device, not a regular file`);
  });

  it('an unreadable projects.json made every command fail: now a warning, user servers still start, approving is an error naming it', async () => {
    await using box = sandbox();
    const marker = path.join(box.root, 'user-started');
    box.write(path.join(box.userDir, 'mcp.json'), {
      mcpServers: { mine: box.markerServer(marker) },
    });
    box.write(path.join(box.repo, '.mcp.json'), { mcpServers: { p: { command: 'p-server' } } });
    const state = path.join(box.userDir, 'projects.json');
    mkdirSync(state);
    const list = await box.cli(['list']);
    expect(list.code).toBe(0);
    expect(list.stderr).toContain(`warning: ${state}: is a folder`);
    expect(list.stderr).toContain('approvals count as not given');
    expect(list.stdout).toMatch(/p\s+project\s+project server from .* waits for approval/);
    await box.cli(['servers']);
    expect(existsSync(marker)).toBe(true);
    const approve = await box.cli(['approve', 'p']);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(`cannot record approvals: ${state} is a folder`);
  });
});

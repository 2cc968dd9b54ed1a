import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ShellHistory, shellHistoryDefaults, shellHistoryFile } from './history.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('shell history', () => {
  it('lives in XDG_STATE_HOME, else ~/.local/state (a relative XDG_STATE_HOME is ignored, as the spec says)', () => {
    const ctx = { cwd: '/w', home: '/h', env: {} };
    expect(shellHistoryFile(ctx)).toBe('/h/.local/state/mcpkit/shell_history');
    expect(shellHistoryFile({ ...ctx, env: { XDG_STATE_HOME: '/s' } })).toBe(
      '/s/mcpkit/shell_history',
    );
    expect(shellHistoryFile({ ...ctx, env: { XDG_STATE_HOME: 'rel' } })).toBe(
      '/h/.local/state/mcpkit/shell_history',
    );
  });

  it('is written 0600 (even over a file that was wider), scrubbed, bounded, and read back newest first', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-shell-history-'));
    const file = path.join(dir, 'state', 'mcpkit', 'shell_history');
    const history = new ShellHistory(file, (line) => line.replaceAll('s3cret', '***'));
    await history.add('tools');
    writeFileSync(file, 'tools\n', { mode: 0o644 });
    await history.add('call gh search {"token": "s3cret"}');
    await history.add('x'.repeat(shellHistoryDefaults.maxLineChars + 1));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8')).toBe('tools\ncall gh search {"token": "***"}\n');

    for (let i = 0; i < shellHistoryDefaults.maxLines + 5; i++) await history.add(`line ${i}`);
    const again = new ShellHistory(file);
    await again.load();
    expect(again.newestFirst).toHaveLength(shellHistoryDefaults.maxLines);
    expect(again.newestFirst[0]).toBe(`line ${shellHistoryDefaults.maxLines + 4}`);
  });

  it('reads only the end of a file grown too big, from a line start', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-shell-history-'));
    const file = path.join(dir, 'shell_history');
    const line = `${'y'.repeat(99)}\n`;
    writeFileSync(
      file,
      `first\n${line.repeat((shellHistoryDefaults.maxReadBytes / 100) * 2)}last\n`,
    );
    const history = new ShellHistory(file);
    await history.load();
    expect(history.newestFirst[0]).toBe('last');
    expect(history.newestFirst).not.toContain('first');
    expect(history.newestFirst.every((l) => l === 'last' || l === 'y'.repeat(99))).toBe(true);
  });
});

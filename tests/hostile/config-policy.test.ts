import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './config-sandbox.js';

/** A user server `evil` whose only effect is a marker file: if it exists, evil was started. */
function withEvil(box: Sandbox, marks = box.root) {
  const marker = path.join(marks, 'evil-started');
  box.write(path.join(box.userDir, 'mcp.json'), { mcpServers: { evil: box.markerServer(marker) } });
  return marker;
}

const BROKEN: Array<[string, (file: string) => void]> = [
  ['malformed JSONC', (f) => writeFileSync(f, '{"deniedMcpServers":[{"serverName":"evil"}],} x')],
  [
    'a deny list given as an object',
    (f) => writeFileSync(f, '{"deniedMcpServers":{"serverName":"evil"}}'),
  ],
  [
    'an entry with a misspelt key',
    (f) => writeFileSync(f, '{"deniedMcpServers":[{"servername":"evil"}]}'),
  ],
  ['a misspelt list name', (f) => writeFileSync(f, '{"deniedMcpServer":[{"serverName":"evil"}]}')],
  ['a folder', (f) => mkdirSync(f)],
  ['a FIFO', (f) => execFileSync('mkfifo', [f])],
  [
    'over 10 MB',
    (f) =>
      writeFileSync(
        f,
        `{"deniedMcpServers":[{"serverName":"evil"}]}${' '.repeat(10 * 1024 * 1024)}`,
      ),
  ],
];

describe('mcpkit with a broken settings.json starts nothing (issue #10 finding 1)', () => {
  it('control: with no settings file, servers does start evil (the marker check can fail)', async () => {
    await using box = sandbox();
    const marker = withEvil(box);
    const r = await box.cli(['servers']);
    expect(existsSync(marker), r.stderr).toBe(true);
  });

  it.each(BROKEN)(
    'settings.json that is %s: servers and list do not start evil, and name the file',
    async (_, make) => {
      await using box = sandbox();
      const marker = withEvil(box);
      const settings = path.join(box.userDir, 'settings.json');
      make(settings);
      const servers = await box.cli(['servers']);
      expect(existsSync(marker)).toBe(false);
      expect(servers.code).not.toBe(0);
      expect(servers.stderr).toContain(settings);
      expect(servers.stderr).toContain('no server starts');
      const list = await box.cli(['list']);
      expect(existsSync(marker)).toBe(false);
      expect(list.stdout).toMatch(
        /evil\s+user\s+blocked by policy: .*settings\.json cannot be used/,
      );
      expect(list.stdout).toContain('fix the file or remove it');
    },
  );

  it('settings.json that cannot be read (EACCES, CLI run as nobody): evil is not started', async () => {
    await using box = sandbox();
    const marks = path.join(box.root, 'marks');
    mkdirSync(marks);
    const marker = withEvil(box, marks);
    const settings = box.write(path.join(box.userDir, 'settings.json'), {
      deniedMcpServers: [{ serverName: 'evil' }],
    });
    // Let nobody into the sandbox (mkdtemp makes it private), but not into settings.json.
    const open = (dir: string) => {
      chmodSync(dir, statSync(dir).isDirectory() ? 0o755 : 0o644);
      if (statSync(dir).isDirectory()) for (const e of readdirSync(dir)) open(path.join(dir, e));
    };
    open(box.root);
    chmodSync(marks, 0o777);
    chmodSync(settings, 0o000);
    const r = await box.cli(['servers'], { uid: 65534 });
    expect(r.stderr).toContain('EACCES');
    expect(r.stderr).toContain(settings);
    expect(existsSync(marker)).toBe(false);
    // Control, same user: with the file readable and harmless, evil does start.
    writeFileSync(settings, '{}');
    chmodSync(settings, 0o644);
    await box.cli(['servers'], { uid: 65534 });
    expect(existsSync(marker)).toBe(true);
  });
});

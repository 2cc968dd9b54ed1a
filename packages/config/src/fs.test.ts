import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_READ_ERROR_CODES, ConfigReadError, readConfigFile } from './fs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'mcpkit-config-fs-'));
  dirs.push(d);
  return d;
};

async function failure(file: string, limit?: number): Promise<ConfigReadError> {
  const error = await readConfigFile(file, limit).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigReadError);
  return error as ConfigReadError;
}

describe('readConfigFile: only regular files, never more than the limit (issue #10 finding 12)', () => {
  it('reads a regular file, and a symlink to one; a missing file is undefined', async () => {
    const d = scratch();
    writeFileSync(path.join(d, 'real.json'), '{"a":1}');
    symlinkSync(path.join(d, 'real.json'), path.join(d, 'link.json'));
    expect(await readConfigFile(path.join(d, 'real.json'))).toBe('{"a":1}');
    expect(await readConfigFile(path.join(d, 'link.json'))).toBe('{"a":1}');
    expect(await readConfigFile(path.join(d, 'missing.json'))).toBeUndefined();
    expect(await readConfigFile(path.join(d, 'real.json', 'below'))).toBeUndefined();
  });

  it('a symlink to /dev/stdin made list hang: now it is refused without reading', async () => {
    const d = scratch();
    symlinkSync('/dev/stdin', path.join(d, '.mcp.json'));
    const e = await failure(path.join(d, '.mcp.json'));
    expect(e.code).toBe(CONFIG_READ_ERROR_CODES.notAFile);
    expect(e.message).toContain(path.join(d, '.mcp.json'));
  });

  it('a symlink to /dev/zero read 641 MB: now it is refused as a device', async () => {
    const d = scratch();
    symlinkSync('/dev/zero', path.join(d, '.mcp.json'));
    const e = await failure(path.join(d, '.mcp.json'));
    expect(e.code).toBe(CONFIG_READ_ERROR_CODES.notAFile);
    expect(e.message).toContain('character device');
  });

  it('a FIFO with no writer is refused at once (opening it never waits)', async () => {
    const d = scratch();
    execFileSync('mkfifo', [path.join(d, 'settings.json')]);
    const e = await failure(path.join(d, 'settings.json'));
    expect(e.code).toBe(CONFIG_READ_ERROR_CODES.notAFile);
    expect(e.message).toContain('FIFO');
  });

  it('a folder is refused', async () => {
    const d = scratch();
    mkdirSync(path.join(d, 'mcp.json'));
    expect((await failure(path.join(d, 'mcp.json'))).code).toBe(CONFIG_READ_ERROR_CODES.notAFile);
  });

  it('a file over the limit is refused; exactly the limit is fine', async () => {
    const d = scratch();
    writeFileSync(path.join(d, 'big.json'), ' '.repeat(101));
    writeFileSync(path.join(d, 'ok.json'), ' '.repeat(100));
    const e = await failure(path.join(d, 'big.json'), 100);
    expect(e.code).toBe(CONFIG_READ_ERROR_CODES.tooLarge);
    expect(e.message).toContain('100 bytes');
    expect(await readConfigFile(path.join(d, 'ok.json'), 100)).toHaveLength(100);
  });

  it('a file whose size says 0 but which has content (as in /proc) is still bounded by the read', async () => {
    // /proc/self/status is a regular file of stated size 0; reading it is what bounds it.
    expect((await failure('/proc/self/status', 4)).code).toBe(CONFIG_READ_ERROR_CODES.tooLarge);
  });
});

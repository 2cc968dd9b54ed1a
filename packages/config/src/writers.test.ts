import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { addServer, ConfigWriteError, removeServer, updateServer } from './writers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const root = mkdtempSync(path.join(tmpdir(), 'mcpkit-writers-'));
  dirs.push(root);
  const cwd = path.join(root, 'repo');
  mkdirSync(cwd);
  return {
    root,
    cwd,
    options: { cwd, home: path.join(root, 'home'), env: {}, platform: 'linux' as const },
  };
}

describe('writers', () => {
  it("add, update and remove keep the file's comments and formatting", async () => {
    const { cwd, options } = setup();
    const file = path.join(cwd, '.mcp.json');
    writeFileSync(
      file,
      '{\n  // team servers\n  "mcpServers": {\n    "a": { "command": "x" } // keep me\n  }\n}\n',
    );
    await addServer('project', 'b', { command: 'npx', args: ['-y', 'b'] }, options);
    let text = readFileSync(file, 'utf8');
    expect(text).toContain('// team servers');
    expect(text).toContain('// keep me');
    expect(parse(text).mcpServers.b).toEqual({
      command: 'npx',
      args: ['-y', 'b'],
    });
    await updateServer('project', 'a', { type: 'http', url: 'https://x.example/mcp' }, options);
    await removeServer('project', 'b', options);
    text = readFileSync(file, 'utf8');
    expect(text).toContain('// team servers');
    expect(parse(text).mcpServers).toEqual({
      a: { type: 'http', url: 'https://x.example/mcp' },
    });
    // Atomic writes leave no temporary files behind.
    expect(readdirSync(cwd)).toEqual(['.mcp.json']);
  });

  it('creates user and local files where needed; local state is private (0600)', async () => {
    const { options, cwd } = setup();
    const userFile = await addServer('user', 'u', { command: 'u' }, options);
    expect(userFile).toBe(path.join(options.home, '.config', 'mcpkit', 'mcp.json'));
    const localFile = await addServer(
      'local',
      'l',
      { command: 'l', env: { SECRET: 's' } },
      options,
    );
    expect(statSync(localFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(localFile, 'utf8')).projects[cwd].mcpServers.l.command).toBe(
      'l',
    );
  });

  it('refuses bad names, invalid entries, duplicates and missing servers with clear errors', async () => {
    const { options } = setup();
    await expect(addServer('project', 'has space', { command: 'x' }, options)).rejects.toThrow(
      'server name "has space" may contain only letters, digits, "-" and "_"',
    );
    await expect(addServer('project', 'r', { url: 'https://x.example' }, options)).rejects.toThrow(
      'invalid server "r": type: a server with a "url" needs a "type"',
    );
    await addServer('project', 'a', { command: 'x' }, options);
    await expect(addServer('project', 'a', { command: 'y' }, options)).rejects.toBeInstanceOf(
      ConfigWriteError,
    );
    await expect(removeServer('project', 'zzz', options)).rejects.toThrow(
      'no server named "zzz" in the project scope',
    );
  });
});

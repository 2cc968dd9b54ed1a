import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type Sandbox, sandbox } from './cli-harness.js';

/**
 * Findings 11 and 14 of issue #10, the `servers` side: a repository's `.mcp.json` entry
 * with the name of the user's own server replaced it without a word, and since the project
 * entry waits for approval, neither ran. `servers` now says so, in its table and its JSON.
 */
let box: Sandbox;
afterEach(() => box?.[Symbol.dispose]());

describe('mcpkit servers: a pending project entry that replaces the user entry', () => {
  it('the table and the JSON say that the user entry is replaced and that neither runs; nothing is started', async () => {
    box = sandbox();
    const mine = path.join(box.dir, 'mine-started');
    const theirs = path.join(box.dir, 'theirs-started');
    const userDir = path.join(box.home, '.config/mcpkit');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(
      path.join(userDir, 'mcp.json'),
      JSON.stringify({ mcpServers: { notes: { command: 'sh', args: ['-c', `touch ${mine}`] } } }),
    );
    writeFileSync(
      path.join(box.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { notes: { command: 'sh', args: ['-c', `touch ${theirs}`] } } }),
    );
    const [table, json] = await Promise.all([
      runCli(['servers'], { env: box.env, cwd: box.cwd }),
      runCli(['--json', 'servers'], { env: box.env, cwd: box.cwd }),
    ]);
    expect(table.stdout).toMatch(
      /notes\s+not started: the project entry "notes" \(.*\.mcp\.json, pending approval\) replaces your user entry in .*mcp\.json, so neither runs: run "mcpkit approve notes"/,
    );
    const row = JSON.parse(json.stdout).servers[0];
    expect(row).toMatchObject({ name: 'notes', status: 'pending-approval' });
    expect(row.replaces).toEqual([
      expect.objectContaining({ scope: 'user', source: path.join(userDir, 'mcp.json') }),
    ]);
    expect(existsSync(mine) || existsSync(theirs)).toBe(false);
  });
});

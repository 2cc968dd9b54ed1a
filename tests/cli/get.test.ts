import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';

/** `mcpkit get <name>`: one server in full, secrets redacted. */
const fixture = fileURLToPath(new URL('./servers/cli-fixture-server.mjs', import.meta.url));

let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

describe('mcpkit get', () => {
  it('shows the entry redacted, scope and file, decision, state, capabilities and tools with host names', async () => {
    box = sandbox('mcpkit-cli-get-');
    const config = box.file('servers.json', {
      mcpServers: {
        fx: {
          command: process.execPath,
          args: [fixture, 'ok', path.join(box.dir, 'fx.log')],
          env: { TOKEN: 'very-secret-token-42' },
        },
      },
    });
    const run = (...a: string[]) =>
      runCli(['--strict-config', '-c', config, ...a], { env: box!.env, cwd: box!.cwd });
    const [text, json] = await Promise.all([run('get', 'fx'), run('--json', 'get', 'fx')]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout + json.stdout).not.toContain('very-secret-token-42');
    expect(text.stdout).toContain(`scope:    dynamic (${config})`);
    expect(text.stdout).toContain('decision: enabled');
    expect(text.stdout).toMatch(
      /state: {4}connected, protocol 2025-11-25, \d+ ms\nera: {6}a 2024–2025 revision/,
    );
    expect(text.stdout).toContain('echo  (mcp__fx__echo)');
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      name: 'fx',
      scope: 'dynamic',
      state: 'connected',
      capabilities: { tools: {} },
      config: { env: { TOKEN: '***' } },
    });
    expect(doc.tools).toContainEqual(
      expect.objectContaining({ name: 'ask', hostName: 'mcp__fx__ask' }),
    );
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { faultServer } from '../manager/helpers.js';
import { everythingEntry } from '../support/everything.js';

/**
 * What each command asks server-everything to list (read from `--trace`): only what it
 * shows. `tools` asks for the tools once, `prompts` for the prompts once, `read` for no list.
 */
let box: Sandbox | undefined;
afterEach(() => {
  if (box) expect(processesWith(box.dir)).toEqual([]);
  box?.[Symbol.dispose]();
  box = undefined;
});

async function listsAsked(args: string[]): Promise<string[]> {
  const b = box!;
  const config = b.file('servers.json', {
    mcpServers: { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
  });
  const file = path.join(b.dir, `trace-${args[0]}.jsonl`);
  const r = await runCli(['--strict-config', '-c', config, '--trace', file, ...args], {
    env: b.env,
    cwd: b.cwd,
  });
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { direction: string; message: { method?: string } })
    .filter((l) => l.direction === 'send' && l.message.method?.endsWith('/list'))
    .map((l) => l.message.method!)
    .filter((m) => m !== 'roots/list');
}

describe('the lists a command asks for', () => {
  it('tools: tools/list once; prompts: prompts/list once; read: none', async () => {
    box = sandbox('mcpkit-cli-lists-');
    expect(await listsAsked(['tools'])).toEqual(['tools/list']);
    expect(await listsAsked(['prompts'])).toEqual(['prompts/list']);
    expect(
      await listsAsked(['read', 'everything', 'demo://resource/static/document/architecture.md']),
    ).toEqual([]);
  });

  it('tools: a server whose tools/list fails is reported with its error, exit 1 (not shown with none)', async () => {
    box = sandbox('mcpkit-cli-lists-');
    const config = box.file('servers.json', {
      mcpServers: { broken: { command: process.execPath, args: [faultServer, 'list-error'] } },
    });
    const r = await runCli(['--strict-config', '-c', config, 'tools'], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the tool registry is unavailable');
    expect(r.stdout).not.toContain('broken (0 tools)');
  });
});

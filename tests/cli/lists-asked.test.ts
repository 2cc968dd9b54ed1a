import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, runCli, type Sandbox, sandbox } from '../hostile/cli-harness.js';
import { faultServer } from '../manager/helpers.js';
import { everythingEntry } from '../support/everything.js';

/**
 * What each command asks server-everything to list (read from `--trace`): only what it
 * shows. `tools` asks for the tools once, `prompts` for the prompts once, `read` for no list.
 * server-everything registers tools after `notifications/initialized` and announces each
 * with `notifications/tools/list_changed`. The manager asks again 300 ms after a change
 * announced while or after it listed (the answer may predate it); a one-shot command is
 * usually done by then, on a loaded machine not always. So a list asked again is left out
 * only when the server announced that list's change after the request before it
 * (`justified` below); any other repeat fails the test.
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
  const trace = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { direction: string; message: { id?: number; method?: string } });
  return trace
    .filter(
      (l, i) =>
        l.direction === 'send' &&
        l.message.method?.endsWith('/list') &&
        l.message.method !== 'roots/list' &&
        !justified(trace, i),
    )
    .map((l) => l.message.method!);
}

/**
 * Whether the list sent at `at` repeats one sent earlier in the trace after which the
 * server announced that list's change (`notifications/<kind>/list_changed` received after
 * that request and before `at`): the answer may predate the change, so the manager asks
 * again (after its debounce, when the command is still running then).
 */
function justified(
  trace: readonly { direction: string; message: { id?: number; method?: string } }[],
  at: number,
): boolean {
  const method = trace[at]!.message.method!;
  const changed = `notifications/${method.slice(0, -'/list'.length)}/list_changed`;
  let before = -1;
  for (let i = 0; i < at; i++)
    if (trace[i]!.direction === 'send' && trace[i]!.message.method === method) before = i;
  return (
    before !== -1 &&
    trace
      .slice(before + 1, at)
      .some((l) => l.direction === 'receive' && l.message.method === changed)
  );
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

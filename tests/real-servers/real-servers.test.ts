import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, type CliRun, killLeftovers, runCli, waitFor } from '../hostile/cli-harness.js';
import {
  config,
  expected,
  inTurns,
  leftIn,
  names,
  type RealBox,
  realBox,
  type SdkSession,
  sdkSession,
} from './suite.js';

/**
 * Sixteen MCP servers from npm, pinned in tests/package.json, started from one config
 * (servers.mcp.json) with no network, against the built CLI and the official SDK v1 client.
 * What each stands for and the deliberate differences: README.md beside this file.
 */

interface ServerRow {
  name: string;
  status: string;
  protocolVersion?: string;
  tools?: number;
  [key: string]: unknown;
}
interface ToolsDoc {
  servers: Array<{ name: string; tools: Array<Record<string, unknown>> }>;
  errors?: Array<{ server: string; error: string }>;
}

const cliArgs = (box: RealBox, ...rest: string[]) => [
  '--config',
  box.config,
  '--strict-config',
  // Neither client offers roots: filesystem would take them over its argument, and
  // everything shows one more tool.
  '--no-roots',
  ...rest,
];

/** The built CLI with its stdout going straight into a file, as `mcpkit … > file`. */
function cliToFile(
  box: RealBox,
  args: string[],
  file: string,
): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [bin, ...args], {
    env: box.env,
    cwd: box.cwd,
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (t: string) => {
    stderr += t;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

/** What `call` writes for a result: each content block, then the structured content. */
function plainText(result: Record<string, unknown>): string {
  const parts = (result.content as Array<Record<string, unknown>>).map((b) =>
    b.type === 'text' ? String(b.text) : JSON.stringify(b),
  );
  if (result.structuredContent !== undefined) {
    parts.push(`structured content:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  return parts.join('\n');
}

/** The server's own words in an SDK v1 McpError message. */
const serverWords = (message: string) =>
  message.replace(/^McpError: /, '').replace(/^MCP error -?\d+: /, '');

/** The servers whose list comes whole: all but the sloppy one and the one that fails. */
const ordinary = names.filter(
  (n) => expected[n]!.trait !== 'sloppy-schema' && expected[n]!.trait !== 'list-fails-offline',
);

describe('real MCP servers from npm, offline', () => {
  let box: RealBox;
  let servers: CliRun;
  let tools: CliRun;
  let toolsDoc: ToolsDoc;
  let rows: Map<string, ServerRow>;
  const sdk = new Map<string, SdkSession>();

  beforeAll(async () => {
    box = realBox();
    const t0 = Date.now();
    // The two CLI runs side by side, each server once in each; then the official client the
    // way a host would start them, every server at once, each listing its tools and making
    // its offline call.
    [servers, tools] = await Promise.all([
      runCli(cliArgs(box, 'servers', '--json'), box),
      runCli(cliArgs(box, 'tools', '--json'), box),
    ]);
    const t1 = Date.now();
    await waitFor(() => leftIn(box).length === 0, 'the servers of the CLI runs to exit');
    const lists = await Promise.all(names.map((n) => sdkSession(box, n)));
    for (const [i, n] of names.entries()) sdk.set(n, lists[i]!);
    console.log(`real servers: CLI runs ${t1 - t0} ms, SDK v1 sessions ${Date.now() - t1} ms`);
    rows = new Map(
      (JSON.parse(servers.stdout) as { servers: ServerRow[] }).servers.map((r) => [r.name, r]),
    );
    toolsDoc = JSON.parse(tools.stdout) as ToolsDoc;
  }, 300_000);

  afterAll(() => {
    if (!box) return;
    killLeftovers(box.dir);
    box[Symbol.dispose]();
  });

  const cliTools = (name: string) => toolsDoc.servers.find((s) => s.name === name)?.tools;
  const withoutHostName = (t: Record<string, unknown>) => {
    const { hostName: _, ...rest } = t;
    return rest;
  };

  it('has at least 12 servers from several vendors, each pinned to an exact version', () => {
    expect(names.length).toBeGreaterThanOrEqual(12);
    expect(Object.keys(expected).sort()).toEqual([...names].sort());
    expect(new Set(names.map((n) => expected[n]!.vendor)).size).toBeGreaterThanOrEqual(8);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    for (const name of names) {
      const script = config.mcpServers[name]!.args![0]!.replace(/^\$\{MCPKIT_REAL_MODULES\}\//, '');
      const dep = script.startsWith('@')
        ? script.split('/').slice(0, 2).join('/')
        : script.split('/')[0]!;
      expect(pkg.devDependencies[dep], `${name}: ${dep}`).toMatch(/^\d+\.\d+\.\d+$/);
    }
    // The suite stands for each of these at least once.
    const traits = new Set(names.map((n) => expected[n]!.trait));
    for (const t of ['sloppy-schema', 'list-fails-offline', 'mcp-apps', 'modern-era'] as const) {
      expect(traits.has(t), t).toBe(true);
    }
  });

  it('servers --json: exits 1, because one started server could not list its tools', () => {
    expect(servers.code, servers.stderr).toBe(1);
    expect([...rows.keys()].sort()).toEqual([...names].sort());
  });

  it.each(ordinary)('%s: connected, its protocol revision and its tool count', (name) => {
    const row = rows.get(name)!;
    expect(row.status, JSON.stringify(row)).toBe('connected');
    // A modern server may have been spoken to in the legacy era here: see the test below.
    if (expected[name]!.trait !== 'modern-era')
      expect(row.protocolVersion).toBe(expected[name]!.protocolVersion);
    expect(row.tools).toBe(expected[name]!.tools);
    expect(sdk.get(name)!.tools?.length, sdk.get(name)!.error).toBe(expected[name]!.tools);
  });

  it.each(ordinary)('%s: tools --json is what the SDK v1 client lists, plus hostName', (name) => {
    const ours = cliTools(name);
    const theirs = sdk.get(name)!.tools;
    expect(theirs, sdk.get(name)!.error).toBeDefined();
    expect(ours?.map(withoutHostName)).toEqual(theirs);
  });

  it('gitlab (sloppy schemas: no "type"): every tool is kept, each schema repaired to an object', () => {
    const list = sdk.get('gitlab')!;
    // SDK v1 refuses the whole list over its first schema; the wire had nine tools.
    expect(list.refused).toMatch(/inputSchema/);
    expect(list.raw).toHaveLength(expected.gitlab!.tools);
    expect(list.raw!.every((t) => (t.inputSchema as { type?: unknown }).type === undefined)).toBe(
      true,
    );
    expect(rows.get('gitlab')!.tools).toBe(expected.gitlab!.tools);
    const ours = cliTools('gitlab')!;
    expect(ours.map((t) => t.name)).toEqual(list.raw!.map((t) => t.name));
    for (const [i, tool] of ours.entries()) {
      const raw = list.raw![i]!;
      const { inputSchema, ...rest } = withoutHostName(tool);
      expect(rest).toEqual(
        Object.fromEntries(Object.entries(raw).filter(([k]) => k !== 'inputSchema')),
      );
      // Repaired, not rewritten: what the server sent, with the type it left out.
      expect(inputSchema).toEqual({ ...(raw.inputSchema as object), type: 'object' });
    }
  });

  it('supabase (tools/list fails offline): the failure is its state, not an empty list', () => {
    const list = sdk.get('supabase')!;
    expect(list.error).toMatch(/fetch failed/);
    const row = rows.get('supabase')!;
    // Connected or not, its row says that the list failed and with the server's words.
    expect(JSON.stringify(row)).toMatch(/fetch failed/);
    expect(
      row.status === 'connected' && row.tools === 0 && !/fail/i.test(JSON.stringify(row)),
    ).toBe(false);
    expect(tools.code).toBe(1);
    const error = toolsDoc.errors?.find((e) => e.server === 'supabase');
    expect(error?.error).toMatch(/fetch failed/);
  });

  it('pdf (MCP Apps): the _meta.ui of its tools reaches tools --json unchanged', () => {
    const display = cliTools('pdf')!.find((t) => t.name === 'display_pdf')!;
    expect((display._meta as { ui: { resourceUri: string } }).ui.resourceUri).toMatch(/^ui:\/\//);
    expect(withoutHostName(display)).toEqual(
      sdk.get('pdf')!.tools!.find((t) => t.name === 'display_pdf'),
    );
  });

  it('context7 (a 2026-07-28 server on npm) is spoken to in the modern era', async () => {
    // Run alone, after the others: the CLI probes with "server/discover" for 5 s (the
    // client's discoverTimeoutMs) and speaks 2025-11-25 to a server that has not answered
    // by then, which a server starting among fifteen others on two loaded cores may not.
    const run = await runCli(cliArgs(box, 'servers', '--json', '-s', 'context7', '-s', 'exa'), box);
    const alone = new Map(
      (JSON.parse(run.stdout) as { servers: ServerRow[] }).servers.map((r) => [r.name, r]),
    );
    expect(alone.get('context7')).toMatchObject({
      status: 'connected',
      protocolVersion: '2026-07-28',
      era: 'modern',
    });
    // The legacy-only server beside it keeps its own revision.
    expect(alone.get('exa')).toMatchObject({
      status: 'connected',
      protocolVersion: '2025-11-25',
      era: 'legacy',
    });
  });

  it('host names: unique across all servers and ^[A-Za-z0-9_-]{1,64}$; an app-only tool has none', () => {
    const appOnly = (t: { _meta?: unknown }) => {
      const ui = (t._meta as { ui?: { visibility?: unknown } } | undefined)?.ui;
      return Array.isArray(ui?.visibility) && !ui.visibility.includes('model');
    };
    const tools = toolsDoc.servers.flatMap((s) => s.tools);
    expect(tools.length).toBe(names.reduce((n, name) => n + expected[name]!.tools, 0));
    // A tool only the server's App may call is not offered to a model, so it has no host name.
    for (const t of tools.filter(appOnly)) expect(t.hostName).toBeUndefined();
    const all = tools.filter((t) => !appOnly(t)).map((t) => String(t.hostName));
    expect(all.length).toBeLessThan(tools.length);
    expect(new Set(all).size).toBe(all.length);
    for (const h of all) expect(h).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('one harmless offline call per server: the result byte-exact through call > file', async () => {
    const failures: string[] = [];
    const t0 = Date.now();
    await inTurns(names, 3, async (name) => {
      const call = expected[name]!.call;
      const file = path.join(box.dir, `call-${name}.out`);
      const args = JSON.stringify(call.args(box));
      // --no-check: some of these calls are refused by the server on purpose (its own words
      // are what is compared), so the CLI's check against the input schema stays out.
      const ours = await cliToFile(
        box,
        cliArgs(box, 'call', '--no-check', name, call.tool, args),
        file,
      );
      const theirs = sdk.get(name)!.call;
      const written = readFileSync(file);
      const fail = (what: string) => failures.push(`${name}: ${what}`);
      if (call.answer === 'rpc-error') {
        if (!theirs.error) return fail(`SDK v1 got a result: ${JSON.stringify(theirs.result)}`);
        if (ours.code !== 1) fail(`exit ${ours.code}`);
        if (written.length !== 0) fail(`stdout ${JSON.stringify(written.toString())}`);
        if (!ours.stderr.includes(serverWords(theirs.error)))
          fail(
            `stderr ${JSON.stringify(ours.stderr)} lacks ${JSON.stringify(serverWords(theirs.error))}`,
          );
        return;
      }
      if (!theirs.result) return fail(`SDK v1 got an error: ${theirs.error}`);
      const want = Buffer.from(plainText(theirs.result));
      const exact =
        written.equals(want) || written.equals(Buffer.concat([want, Buffer.from('\n')]));
      if (!exact)
        fail(
          `wrote ${JSON.stringify(written.toString())}, want ${JSON.stringify(want.toString())}`,
        );
      const code = theirs.result.isError === true ? 1 : 0;
      if (ours.code !== code) fail(`exit ${ours.code}, want ${code}: ${ours.stderr}`);
    });
    console.log(`real servers: ${names.length} calls ${Date.now() - t0} ms`);
    expect(failures).toEqual([]);
    // The filesystem call read a file with tabs, CR LF and non-ASCII text.
    expect(readFileSync(path.join(box.dir, 'call-filesystem.out'), 'utf8')).toContain(
      'héllo wörld ✓ "quoted" \\t\ttab\r\nend',
    );
  }, 300_000);

  it('no process left: every server of every run has exited', async () => {
    await waitFor(() => leftIn(box).length === 0, 'the servers of the calls to exit');
    expect(leftIn(box)).toEqual([]);
  });
});

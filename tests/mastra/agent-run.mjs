// Run by agent.test.ts on Node 22 (@mastra/core declares Node >= 22.13): real Mastra
// `Agent` loops, with the AI SDK's scripted model (MockLanguageModelV3 from `ai/test`, which
// Mastra takes as a LanguageModelV3), over the built @mcpkit/mastra and @mcpkit/manager, with
// server-everything and the adapters' fixture server as stdio children, then the tasks
// fixture (a 2026-07-28 server on @mcpkit/server whose long tools answer with tasks) under a
// manager with the tasks extension on. Prints one JSON line.
// Usage: node agent-run.mjs <server-everything entry> <adapter fixture server> <tasks fixture>
import { Agent } from '@mastra/core/agent';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';
import { MastraMcpClient, McpToolError } from '@mcpkit/mastra';
import { MockLanguageModelV3 } from 'ai/test';
import { toolResultsIn, usage } from '../support/language-model-prompt.mjs';

const [everythingEntry, fixtureEntry, tasksEntry] = process.argv.slice(2);

/**
 * Step 1 calls the tool (when one is given); the next step answers with the outputs of the
 * tool results it was sent. `offered` keeps the tool names of each step.
 */
function scriptedModel(call) {
  const offered = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      offered.push((options.tools ?? []).map((t) => t.name).sort());
      const results = toolResultsIn(options);
      const first = call && results.length === 0;
      return {
        content: first
          ? [
              {
                type: 'tool-call',
                toolCallId: 'call-1',
                toolName: call.name,
                input: JSON.stringify(call.args),
              },
            ]
          : [{ type: 'text', text: JSON.stringify(results.map((r) => r.output)) }],
        finishReason: { unified: first ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model, offered };
}

const agentOf = (model, tools) =>
  new Agent({ id: 'mcpkit-test', name: 'mcpkit-test', instructions: 'test', model, tools });

/** One agent run: what the model was offered and sent, and the run's tool results. */
async function runOnce(mcp, call, { toolsets, signal } = {}) {
  const { model, offered } = scriptedModel(call);
  const agent = agentOf(model, toolsets ? {} : await mcp.listTools());
  const result = await agent.generate('go', {
    maxSteps: 3,
    ...(toolsets ? { toolsets } : {}),
    ...(signal ? { abortSignal: signal } : {}),
  });
  return {
    offered,
    sent: toolResultsIn(model.doGenerateCalls.at(-1)).map((r) => r.output),
    results: result.toolResults.map((r) => r.payload.result),
    text: result.text,
  };
}

const stderrLine = (manager, text) =>
  new Promise((resolve) => {
    const off = manager.on('stderr', (e) => {
      if (e.text.includes(text)) {
        off();
        resolve();
      }
    });
  });

const { servers } = resolveConfig({
  sources: [
    {
      scope: 'dynamic',
      source: 'mastra test',
      value: {
        mcpServers: {
          everything: { command: process.execPath, args: [everythingEntry, 'stdio'] },
          fixture: { command: process.execPath, args: [fixtureEntry] },
        },
      },
    },
  ],
});
const manager = new McpManager({
  servers,
  clientInfo: { name: 'mcpkit-mastra-test', version: '0' },
});
const mcp = new MastraMcpClient(manager);
const out = { node: process.version };
try {
  const snapshot = await manager.connectAll();
  out.states = snapshot.servers.map((s) => [s.name, s.state]);

  const tools = await mcp.listTools();
  out.names = Object.keys(tools).sort();
  out.toolsets = Object.fromEntries(
    Object.entries(await mcp.listToolsets()).map(([s, set]) => [s, Object.keys(set).sort()]),
  );
  out.viewTool = { mcp: tools.fixture_view.mcp, mcpMetadata: tools.fixture_view.mcpMetadata };

  const echo = await runOnce(mcp, { name: 'everything_echo', args: { message: 'hi' } });
  out.echo = {
    offered: echo.offered[0],
    sent: echo.sent,
    result: echo.results[0],
    text: echo.text,
  };

  const structured = await runOnce(mcp, {
    name: 'everything_get-structured-content',
    args: { location: 'Chicago' },
  });
  out.structured = { sent: structured.sent, result: structured.results[0] };

  const view = await runOnce(mcp, { name: 'fixture_view', args: {} });
  out.view = { sent: view.sent, result: view.results[0] };

  const fail = await runOnce(mcp, { name: 'fixture_fail', args: {} });
  // Mastra turns what a tool throws into the model's error-text; the thrown error itself:
  const thrown = await tools.fixture_fail.execute({}, {}).catch((e) => e);
  out.fail = {
    sent: fail.sent,
    thrown: {
      isMcpToolError: thrown instanceof McpToolError,
      code: thrown?.code,
      server: thrown?.server,
      tool: thrown?.tool,
      isError: thrown?.result?.isError,
    },
  };
  const returned = await runOnce(new MastraMcpClient(manager, { onToolError: 'return' }), {
    name: 'fixture_fail',
    args: {},
  });
  out.failReturned = { sent: returned.sent, isError: returned.results[0]?.isError };

  // Arguments that break the JSON Schema: Mastra answers the model itself, the server never sees them.
  // Counted by a tool source over the manager whose tools count their calls.
  let calls = 0;
  const counting = new MastraMcpClient({
    tools: async (options) =>
      (await manager.tools(options)).map((t) => ({
        ...t,
        call: (...a) => {
          calls++;
          return t.call(...a);
        },
      })),
  });
  const badArgs = await runOnce(counting, { name: 'everything_echo', args: { message: 42 } });
  const goodArgs = await runOnce(counting, { name: 'everything_echo', args: { message: 'ok' } });
  out.badArgs = { sent: badArgs.sent, goodSent: goodArgs.sent, calls };

  // The run's abort signal reaches the server as notifications/cancelled.
  const controller = new AbortController();
  const started = stderrLine(manager, 'wait: started');
  const cancelled = stderrLine(manager, 'wait: cancelled');
  const waiting = runOnce(mcp, { name: 'fixture_wait', args: {} }, { signal: controller.signal });
  await started;
  controller.abort(new Error('stop'));
  out.abort = await waiting.then(
    (r) => ({ settled: 'resolved', results: r.results }),
    (e) => ({ settled: 'rejected', error: String(e) }),
  );
  await cancelled;
  out.abort.cancelledOnServer = true;

  // list_changed: onListChanged fires, and the next listing (here as toolsets) has the new tool.
  const changed = new Promise((resolve) => mcp.tools.onListChanged('fixture', resolve));
  const before = Object.keys((await mcp.listToolsets()).fixture).sort();
  await runOnce(mcp, { name: 'add_tool', args: {} }, { toolsets: await mcp.listToolsets() });
  await changed;
  const late = await runOnce(
    mcp,
    { name: 'late', args: {} },
    { toolsets: await mcp.listToolsets() },
  );
  out.listChanged = { before, offered: late.offered[0], sent: late.sent };
} finally {
  await mcp.disconnect();
  await manager.close();
}

// The tasks extension: a tool that answers with a task is one awaited call for the agent.
// The tool source wraps the manager's tools only to see `ontask` (the id the manager is told
// the moment the server answers with a task) and to act on it: release the gated task, or
// abort the run, only once the task exists on the server.
const tasksManager = new McpManager({
  servers: resolveConfig({
    sources: [
      {
        scope: 'dynamic',
        source: 'mastra tasks test',
        value: {
          mcpServers: { tasks: { command: process.execPath, args: [tasksEntry, 'stdio'] } },
        },
      },
    ],
  }).servers,
  tasks: true,
  handlers: { elicitation: async () => ({ action: 'accept', content: { name: 'Grace' } }) },
  clientInfo: { name: 'mcpkit-mastra-test', version: '0' },
});
const told = [];
let onTask = () => {};
const tasksMcp = new MastraMcpClient({
  tools: async (options) =>
    (await tasksManager.tools(options)).map((t) => ({
      ...t,
      call: (args, callOptions) =>
        t.call(args, {
          ...callOptions,
          ontask: (task) => {
            told.push({ tool: t.tool, ...task });
            onTask(t.tool);
          },
        }),
    })),
});
try {
  const snapshot = await tasksManager.connectAll();
  out.tasks = { states: snapshot.servers.map((s) => [s.name, s.state]) };

  // An input round (tasks/update) answered by the manager's elicitation handler.
  const asked = await runOnce(tasksMcp, { name: 'tasks_ask_name', args: {} });
  out.tasks.askName = { sent: asked.sent, result: asked.results[0], steps: asked.offered.length };

  // A task that finishes only when released, released only once the server has made it.
  onTask = (tool) => {
    if (tool === 'gated') void tasksManager.callTool('tasks', 'release', { gate: 'mastra-gated' });
  };
  const gated = await runOnce(tasksMcp, { name: 'tasks_gated', args: { gate: 'mastra-gated' } });
  out.tasks.gated = { sent: gated.sent, result: gated.results[0], steps: gated.offered.length };

  // The run's abort signal cancels the task on the server (tasks/cancel).
  const controller = new AbortController();
  onTask = (tool) => {
    if (tool === 'until_cancelled') controller.abort(new Error('stop'));
  };
  const stopped = await runOnce(
    tasksMcp,
    { name: 'tasks_until_cancelled', args: { gate: 'mastra-stop' } },
    { signal: controller.signal },
  ).then(
    (r) => ({ settled: 'resolved', results: r.results }),
    (e) => ({ settled: 'rejected', error: String(e) }),
  );
  // tasks/cancel is sent as the call settles; ask until the server's work saw it (bounded).
  let seenCancel = 'false';
  for (let i = 0; i < 100 && seenCancel !== 'true'; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const r = await tasksManager.callTool('tasks', 'was_cancelled', { gate: 'mastra-stop' });
    seenCancel = r.text;
  }
  out.tasks.abort = { ...stopped, cancelledOnServer: seenCancel };
  out.tasks.told = told.map((t) => [t.tool, t.server, typeof t.taskId]);
} finally {
  await tasksMcp.disconnect();
  await tasksManager.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);

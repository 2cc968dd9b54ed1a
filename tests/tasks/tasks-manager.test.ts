import { createToolSet } from '@mcpkit/ai-sdk';
import { createTools } from '@mcpkit/langchain';
import { McpManager } from '@mcpkit/manager';
import { mcpServers } from '@mcpkit/openai-agents';
import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../ai-sdk/scripted-model.js';
import { resolved } from '../manager/helpers.js';
import { until, useTasksServer } from './support.js';

/**
 * The tasks extension through McpManager (option `tasks`) and the AI SDK adapter: a tool
 * that runs as a task on a 2026-07-28 server built on @mcpkit/server (a child process over
 * HTTP) is one awaited call for the host and the model; its id can be persisted and its
 * result fetched by a new manager after the first one closed.
 */
const http = useTasksServer();

const elicitation = async () => ({ action: 'accept' as const, content: { name: 'Grace' } });
const newManager = () =>
  new McpManager({
    servers: [resolved('tasks', { type: 'http', url: http.url })],
    tasks: true,
    handlers: { elicitation },
  });

describe('McpManager with the tasks extension', () => {
  it('callTool on a task-returning tool: one awaited call, the task id told at once, progress from statusMessage', async () => {
    await using manager = newManager();
    await manager.connectAll();
    const told: Array<{ server: string; taskId: string }> = [];
    const messages: string[] = [];
    const result = await manager.callTool(
      'tasks',
      'long_job',
      { steps: 2, gate: 'manager-long' },
      {
        ontask: (t) => told.push(t),
        onprogress: (p) => {
          messages.push(p.message!);
          const m = /^step (\d) of 2$/.exec(p.message ?? '');
          if (m) void manager.callTool('tasks', 'release', { gate: `manager-long:${m[1]}` });
        },
      },
    );
    expect(result).toMatchObject({ text: 'done 2', isError: false });
    expect(messages).toEqual(['starting', 'step 1 of 2', 'step 2 of 2']);
    expect(told).toEqual([{ server: 'tasks', taskId: expect.any(String) }]);
  });

  it("a host tool's call answers the task's input round with the manager's elicitation handler", async () => {
    await using manager = newManager();
    await manager.connectAll();
    const tool = (await manager.tools()).find((t) => t.name === 'mcp__tasks__ask_name')!;
    expect(await tool.call({})).toMatchObject({ text: 'Hello, Grace!', isError: false });
  });

  it('resumeTask(server, taskId) from a new manager after the first one closed', async () => {
    let taskId: string | undefined;
    const first = newManager();
    await first.connectAll();
    const abandoned = first
      .callTool(
        'tasks',
        'gated',
        { gate: 'manager-resume' },
        { ontask: (t) => (taskId = t.taskId) },
      )
      .catch((e: unknown) => e);
    await until(() => taskId !== undefined, 'the task id');
    await first.close();
    // The first manager's call ends with it; the task lives on on the server.
    expect(await abandoned).toBeInstanceOf(Error);

    await using second = newManager();
    await second.connectAll();
    const resumed = second.resumeTask('tasks', taskId!);
    await second.callTool('tasks', 'release', { gate: 'manager-resume' });
    expect(await resumed).toMatchObject({ text: 'released manager-resume', isError: false });
  });

  it('@mcpkit/ai-sdk: the model calls a task tool and gets its final result in one step', async () => {
    await using manager = newManager();
    await manager.connectAll();
    const model = scriptedModel([{ toolName: 'mcp__tasks__ask_name', input: {} }]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager),
      prompt: 'greet me',
      stopWhen: stepCountIs(2),
    });
    const [call] = result.steps[0]!.toolResults;
    expect(call).toMatchObject({ toolName: 'mcp__tasks__ask_name' });
    expect(call!.output).toMatchObject({ text: 'Hello, Grace!', isError: false });
    expect(result.steps).toHaveLength(2);
  });

  it('@mcpkit/langchain and @mcpkit/openai-agents: a task tool is one awaited call, input round included', async () => {
    await using manager = newManager();
    await manager.connectAll();
    const tool = (await createTools(manager)).find((t) => t.name === 'mcp__tasks__ask_name')!;
    expect(await tool.invoke({})).toBe('Hello, Grace!');
    const [server] = mcpServers(manager);
    const result = await server!.callToolResult('mcp__tasks__ask_name', {});
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Hello, Grace!' }] });
    expect(result.isError).toBe(false);
    await server!.close();
  });
});

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { DynamicStructuredTool } from '@langchain/core/tools';
import { createTools, McpToolError } from '@mcpkit/langchain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterManager, stderrLine } from '../support/adapter-manager.js';

/**
 * A scripted LangChain chat model (a real `BaseChatModel`, no network): its first turn
 * calls the given tool; its next answers with the text of the tool messages it was sent.
 */
class ScriptedChatModel extends BaseChatModel {
  seen: BaseMessage[][] = [];
  constructor(readonly call: { name: string; args: Record<string, unknown> }) {
    super({});
  }
  _llmType() {
    return 'scripted';
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push(messages);
    const tools = messages.filter((m) => ToolMessage.isInstance(m));
    const message =
      tools.length === 0
        ? new AIMessage({
            content: '',
            tool_calls: [
              { id: 'call-1', name: this.call.name, args: this.call.args, type: 'tool_call' },
            ],
          })
        : new AIMessage(JSON.stringify(tools.map((t) => [t.status, t.content])));
    return { generations: [{ message, text: '' }] };
  }
}

/**
 * The tool-calling loop of LangChain's agents: the model's tool calls are invoked as
 * `ToolCall`s (so tools answer `ToolMessage`s with content and artifact), a thrown tool
 * error becomes a `ToolMessage` with status "error" (what LangGraph's ToolNode does), and
 * the loop ends when the model answers text.
 */
async function agentLoop(
  model: ScriptedChatModel,
  tools: DynamicStructuredTool[],
  prompt: string,
  signal?: AbortSignal,
) {
  const messages: BaseMessage[] = [new HumanMessage(prompt)];
  const toolMessages: ToolMessage[] = [];
  for (let turn = 0; turn < 4; turn++) {
    const reply = (await model.invoke(messages, signal ? { signal } : {})) as AIMessage;
    messages.push(reply);
    if (!reply.tool_calls?.length) return { messages, toolMessages, answer: reply.text };
    for (const call of reply.tool_calls) {
      const tool = tools.find((t) => t.name === call.name)!;
      let message: ToolMessage;
      try {
        message = (await tool.invoke(call, signal ? { signal } : {})) as ToolMessage;
      } catch (error) {
        if (signal?.aborted) throw error;
        message = new ToolMessage({
          tool_call_id: call.id!,
          content: (error as Error).message,
          status: 'error',
        });
      }
      toolMessages.push(message);
      messages.push(message);
    }
  }
  throw new Error('the loop did not end');
}

describe('@mcpkit/langchain: LangChain tools over a real McpManager', () => {
  const manager = adapterManager('mcpkit-langchain-test');
  beforeAll(async () => {
    const snapshot = await manager.connectAll();
    expect(snapshot.servers.map((s) => [s.name, s.state])).toEqual([['fixture', 'connected']]);
  });
  afterAll(() => manager.close());

  it('the JSON Schema is passed through as given, and app-only tools are left out', async () => {
    const tools = await createTools(manager);
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__fixture__echo', 'mcp__fixture__fail']));
    expect(names).not.toContain('mcp__fixture__app_refresh');
    const echo = tools.find((t) => t.name === 'mcp__fixture__echo')!;
    const hostEcho = (await manager.tools()).find((t) => t.name === 'mcp__fixture__echo')!;
    expect(echo.schema).toEqual({ ...hostEcho.inputSchema, type: 'object' });
  });

  it('a tool call of the model reaches the server; the text is the content and the rest the artifact', async () => {
    const model = new ScriptedChatModel({ name: 'mcp__fixture__echo', args: { message: 'hi' } });
    const { toolMessages, answer } = await agentLoop(model, await createTools(manager), 'hi');
    expect(toolMessages).toHaveLength(1);
    expect(toolMessages[0]!.content).toBe('echo: hi');
    expect(toolMessages[0]!.artifact).toMatchObject({
      server: 'fixture',
      tool: 'echo',
      files: [],
      resources: [],
    });
    expect(JSON.parse(answer)).toEqual([['success', 'echo: hi']]);
  });

  it('isError from the server is a tool error: the loop sends it back with status "error"', async () => {
    const tools = await createTools(manager);
    const fail = tools.find((t) => t.name === 'mcp__fixture__fail')!;
    await expect(fail.invoke({})).rejects.toBeInstanceOf(McpToolError);
    const model = new ScriptedChatModel({ name: 'mcp__fixture__fail', args: {} });
    const { answer } = await agentLoop(model, tools, 'fail');
    const [[status, text]] = JSON.parse(answer);
    expect(status).toBe('error');
    expect(text).toMatch(
      /^MCP server "fixture": tool "fail" reported an error: the tool failed on purpose/,
    );
  });

  it('arguments that break the JSON Schema never reach the server', async () => {
    const echo = (await createTools(manager)).find((t) => t.name === 'mcp__fixture__echo')!;
    await expect(echo.invoke({ message: 42 })).rejects.toThrow(/did not match expected schema/);
  });

  it("the loop's abort signal cancels the call on the server", async () => {
    const model = new ScriptedChatModel({ name: 'mcp__fixture__wait', args: {} });
    const controller = new AbortController();
    const tools = await createTools(manager, { filter: (t) => t.tool === 'wait' });
    const started = stderrLine(manager, 'wait: started');
    const cancelled = stderrLine(manager, 'wait: cancelled');
    const loop = agentLoop(model, tools, 'wait', controller.signal);
    await started;
    controller.abort(new Error('stop'));
    await expect(loop).rejects.toThrow();
    await cancelled;
  });

  it("a run's timeout (LangChain's config.timeout) ends the call and cancels it on the server", async () => {
    const [wait] = await createTools(manager, { filter: (t) => t.tool === 'wait' });
    const cancelled = stderrLine(manager, 'wait: cancelled');
    await expect(wait!.invoke({}, { timeout: 300 })).rejects.toThrow();
    await cancelled;
  });
});

import { stat } from 'node:fs/promises';
import { createToolSet, type ToolProgressEvent, ToolResultError } from '@mcpkit/ai-sdk';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';
import { generateText, stepCountIs } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { scriptedModel, toolResultsIn } from './scripted-model.js';

// End to end with ai 6 on Node 20: the AI SDK's own mock model calls MCP tools of a real
// server-everything (stdio) through a real McpManager and this package's tool set.
describe('@mcpkit/ai-sdk with ai 6: generateText over a real manager', () => {
  const { servers } = resolveConfig({
    sources: [
      {
        scope: 'dynamic',
        source: 'ai-sdk test',
        value: {
          mcpServers: {
            everything: { command: process.execPath, args: [everythingEntry, 'stdio'] },
          },
        },
      },
    ],
  });
  const manager = new McpManager({
    servers,
    clientInfo: { name: 'mcpkit-ai-sdk-test', version: '0.0.0' },
  });

  beforeAll(async () => {
    const snapshot = await manager.connectAll();
    expect(snapshot.servers.map((s) => [s.name, s.state])).toEqual([['everything', 'connected']]);
  });
  afterAll(() => manager.close());

  it('offers every tool to the model under its host name, with its JSON Schema and description', async () => {
    const tools = await createToolSet(manager);
    const model = scriptedModel([]);
    await generateText({ model, tools, prompt: 'list' });
    const offered = model.doGenerateCalls[0]!.tools ?? [];
    const echo = offered.find((t) => t.type === 'function' && t.name === 'mcp__everything__echo');
    expect(echo).toMatchObject({
      type: 'function',
      description: expect.stringMatching(/echo/i),
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
    });
    expect(offered.length).toBe((await manager.tools()).length);
  });

  it('the model calls echo and gets the server text back in its next step', async () => {
    const model = scriptedModel([
      { toolName: 'mcp__everything__echo', input: { message: 'hello' } },
    ]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager),
      prompt: 'say hello through the tool',
      stopWhen: stepCountIs(2),
    });
    const [call] = result.steps[0]!.toolResults;
    expect(call).toMatchObject({ toolName: 'mcp__everything__echo', input: { message: 'hello' } });
    expect(call!.output).toMatchObject({ text: 'Echo: hello', isError: false, truncated: false });
    expect(call!.toolMetadata).toEqual({ mcpServer: 'everything', mcpTool: 'echo' });
    expect(toolResultsIn(model.doGenerateCalls[1]!)).toEqual([
      expect.objectContaining({
        toolCallId: 'call-1',
        toolName: 'mcp__everything__echo',
        output: { type: 'text', value: 'Echo: hello' },
      }),
    ]);
    expect(result.text).toBe(JSON.stringify([{ type: 'text', value: 'Echo: hello' }]));
  });

  it('isError from the server becomes a tool-error part whose text the model gets', async () => {
    const model = scriptedModel([{ toolName: 'mcp__everything__get-sum', input: { a: 'x' } }]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager),
      prompt: 'add',
      stopWhen: stepCountIs(2),
    });
    const errors = result.steps[0]!.content.filter((p) => p.type === 'tool-error');
    expect(errors).toHaveLength(1);
    const error = errors[0]!.error;
    expect(ToolResultError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      server: 'everything',
      tool: 'get-sum',
      code: 'MCPKIT_AI_SDK_TOOL_RESULT',
    });
    expect((error as ToolResultError).message).toMatch(
      /^MCP server "everything": tool "get-sum" reported an error: .*expected number.*call it again/s,
    );
    const [sent] = toolResultsIn(model.doGenerateCalls[1]!);
    expect(sent!.output).toEqual({ type: 'error-text', value: (error as Error).message });
  });

  it("errors: 'result' keeps an isError result as the tool's output and sends it as error-text", async () => {
    const model = scriptedModel([{ toolName: 'mcp__everything__get-sum', input: { a: 'x' } }]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager, { errors: 'result' }),
      prompt: 'add',
      stopWhen: stepCountIs(2),
    });
    const [call] = result.steps[0]!.toolResults;
    expect(call!.output).toMatchObject({
      isError: true,
      text: expect.stringMatching(/expected number/),
    });
    const [sent] = toolResultsIn(model.doGenerateCalls[1]!);
    expect(sent!.output).toEqual({
      type: 'error-text',
      value: (call!.output as { text: string }).text,
    });
  });

  it('arguments that are not an object never reach the server: the SDK reports invalid input', async () => {
    const model = scriptedModel([]);
    // A model that emits an array where an object is due: the scripted model sends JSON.
    model.doGenerate = async () => ({
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call-1',
          toolName: 'mcp__everything__echo',
          input: '[1]',
        },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      warnings: [],
    });
    // The manager's own tools, with their calls counted.
    let calls = 0;
    const counted = {
      tools: async () =>
        (await manager.tools()).map((t) => ({
          ...t,
          call: (...a: Parameters<typeof t.call>) => {
            calls++;
            return t.call(...a);
          },
        })),
    };
    const result = await generateText({ model, tools: await createToolSet(counted), prompt: 'x' });
    const errors = result.steps[0]!.content.filter((p) => p.type === 'tool-error');
    expect(errors).toHaveLength(1);
    expect(calls).toBe(0);
    // ai 6 keeps an invalid call's error as its message text.
    const said = String(errors[0]!.error);
    expect(said).toMatch(/^Invalid input for tool mcp__everything__echo/);
    expect(said).toContain('tool "echo" takes its arguments as a JSON object, got an array');
  });

  it('progress notifications of a long tool reach onProgress with the tool call they belong to', async () => {
    const events: ToolProgressEvent[] = [];
    const model = scriptedModel([
      {
        toolName: 'mcp__everything__trigger-long-running-operation',
        input: { duration: 0.3, steps: 3 },
      },
    ]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager, { onProgress: (e) => events.push(e) }),
      prompt: 'run it',
    });
    expect(result.steps[0]!.toolResults).toHaveLength(1);
    expect(events.map((e) => [e.progress, e.total])).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    for (const e of events)
      expect(e).toMatchObject({
        toolCallId: 'call-1',
        toolName: 'mcp__everything__trigger-long-running-operation',
        server: 'everything',
        tool: 'trigger-long-running-operation',
      });
  });

  it("generateText's abort signal ends a running MCP call with the abort reason", async () => {
    const controller = new AbortController();
    const model = scriptedModel([
      {
        toolName: 'mcp__everything__trigger-long-running-operation',
        input: { duration: 600, steps: 600 },
      },
    ]);
    const reason = new Error('the user pressed stop');
    const outcome = generateText({
      model,
      abortSignal: controller.signal,
      tools: await createToolSet(manager, {
        // Abort once the call is provably running on the server: at its first progress.
        onProgress: () => controller.abort(reason),
      }),
      prompt: 'run it',
    });
    // ai 6 records a failed execute, aborts included, as a tool-error part of the step.
    const result = await outcome;
    const errors = result.steps[0]!.content.filter((p) => p.type === 'tool-error');
    expect(errors.map((e) => e.error)).toEqual([reason]);
    // The connection is fine afterwards: the next call is answered.
    const echo = (await manager.tools()).find((t) => t.tool === 'echo')!;
    expect((await echo.call({ message: 'still here' })).text).toBe('Echo: still here');
  });

  it('an image travels as a reference to the file the manager wrote, by default', async () => {
    const model = scriptedModel([{ toolName: 'mcp__everything__get-tiny-image', input: {} }]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager),
      prompt: 'show',
      stopWhen: stepCountIs(2),
    });
    const output = result.steps[0]!.toolResults[0]!.output as {
      files: Array<{ path: string; mimeType: string; bytes: number }>;
    };
    expect(output.files).toEqual([
      { path: expect.stringMatching(/\.png$/), mimeType: 'image/png', bytes: expect.any(Number) },
    ]);
    const file = output.files[0]!;
    expect((await stat(file.path)).size).toBe(file.bytes);
    const [sent] = toolResultsIn(model.doGenerateCalls[1]!);
    expect(sent!.output).toMatchObject({ type: 'text' });
    expect((sent!.output as { value: string }).value).toContain(
      `[image saved to ${file.path} (image/png, ${file.bytes} bytes)]`,
    );
  });

  it('inlineFiles sends the image to the model as file-data, text blocks kept around it', async () => {
    const model = scriptedModel([{ toolName: 'mcp__everything__get-tiny-image', input: {} }]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager, { inlineFiles: true }),
      prompt: 'show',
      stopWhen: stepCountIs(2),
    });
    const output = result.steps[0]!.toolResults[0]!.output as {
      files: Array<{ path: string; bytes: number }>;
    };
    const [sent] = toolResultsIn(model.doGenerateCalls[1]!);
    expect(sent!.output.type).toBe('content');
    const parts = (
      sent!.output as { value: Array<{ type: string; data?: string; mediaType?: string }> }
    ).value;
    const files = parts.filter((p) => p.type === 'file-data');
    expect(files).toHaveLength(1);
    expect(files[0]!.mediaType).toBe('image/png');
    const bytes = Buffer.from(files[0]!.data!, 'base64');
    expect(bytes.length).toBe(output.files[0]!.bytes);
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(parts.some((p) => p.type === 'text')).toBe(true);
  });

  it('needsApproval holds the call for the host instead of running it', async () => {
    const model = scriptedModel([
      { toolName: 'mcp__everything__echo', input: { message: 'wait' } },
    ]);
    const result = await generateText({
      model,
      tools: await createToolSet(manager, { needsApproval: (t) => t.tool === 'echo' }),
      prompt: 'ask first',
      stopWhen: stepCountIs(2),
    });
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]!.content.map((p) => p.type)).toEqual([
      'tool-call',
      'tool-approval-request',
    ]);
    expect(result.steps[0]!.toolResults).toEqual([]);
  });

  it('filter keeps only the chosen tools', async () => {
    const tools = await createToolSet(manager, {
      filter: (t) => t.readOnly && t.tool.startsWith('get-'),
    });
    const names = Object.keys(tools);
    expect(names.length).toBeGreaterThan(3);
    for (const n of names) expect(n).toMatch(/^mcp__everything__get-/);
  });
});

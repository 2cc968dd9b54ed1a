import { fileURLToPath } from 'node:url';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';
import { ManagedMcpServer, mcpServers } from '@mcpkit/openai-agents';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  Usage,
} from '@openai/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterManager, stderrLine } from '../support/adapter-manager.js';

/**
 * A scripted Agents SDK model (the SDK's own `Model` interface, no network): its first turn
 * calls the given tool; its second answers with the tool output it was sent. Every request
 * stays in `requests`.
 */
function scriptedModel(call: { name: string; args: Record<string, unknown> } | undefined) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    async getResponse(request): Promise<ModelResponse> {
      requests.push(request);
      const input = Array.isArray(request.input) ? request.input : [];
      const outputs = input.filter(
        (i) => (i as { type?: string }).type === 'function_call_result',
      ) as { output: unknown }[];
      if (call && outputs.length === 0) {
        return {
          usage: new Usage(),
          output: [
            {
              type: 'function_call',
              callId: 'call-1',
              name: call.name,
              arguments: JSON.stringify(call.args),
              status: 'completed',
            },
          ],
        };
      }
      return {
        usage: new Usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: JSON.stringify(outputs.map((o) => o.output)) }],
          },
        ],
      };
    },
    // biome-ignore lint/correctness/useYield: the runs here are not streamed
    async *getStreamedResponse() {
      throw new Error('not streamed in these tests');
    },
  };
  return { model, requests };
}

const offered = (request: ModelRequest) => request.tools.map((t) => t.name).sort();

describe('@mcpkit/openai-agents: an Agents SDK agent over a real McpManager', () => {
  const manager = adapterManager('mcpkit-openai-agents-test');
  beforeAll(async () => {
    const snapshot = await manager.connectAll();
    expect(snapshot.servers.map((s) => [s.name, s.state])).toEqual([['fixture', 'connected']]);
  });
  afterAll(() => manager.close());

  it('the model calls a tool by its host name and the server text comes back into the loop', async () => {
    const { model, requests } = scriptedModel({
      name: 'mcp__fixture__echo',
      args: { message: 'hi' },
    });
    const agent = new Agent({ name: 'a', model, mcpServers: mcpServers(manager) });
    const result = await run(agent, 'echo hi');
    expect(offered(requests[0]!)).toEqual(
      expect.arrayContaining(['mcp__fixture__echo', 'mcp__fixture__fail', 'mcp__fixture__wait']),
    );
    const echo = requests[0]!.tools.find((t) => t.name === 'mcp__fixture__echo') as {
      parameters?: unknown;
    };
    expect(echo.parameters).toMatchObject({ properties: { message: { type: 'string' } } });
    expect(result.finalOutput).toContain('echo: hi');
  });

  it('an app-only tool (_meta.ui.visibility ["app"]) is not offered to the model', async () => {
    const [server] = mcpServers(manager);
    const names = (await server!.listTools()).map((t) => t.name);
    expect(names).toContain('mcp__fixture__echo');
    expect(names).not.toContain('mcp__fixture__app_refresh');
    // The server does list it (the model-facing lists leave it out).
    expect((await manager.serverTools('fixture')).map((t) => t.name)).toContain('app_refresh');
  });

  it("isError from the server reaches the model as the tool's output text", async () => {
    const { model } = scriptedModel({ name: 'mcp__fixture__fail', args: {} });
    const agent = new Agent({ name: 'a', model, mcpServers: mcpServers(manager) });
    const result = await run(agent, 'fail');
    expect(result.finalOutput).toContain('the tool failed on purpose');
  });

  it("honours the SDK's static tool filter (host names)", async () => {
    const { model, requests } = scriptedModel(undefined);
    const server = new ManagedMcpServer(manager, 'fixture', {
      toolFilter: { allowedToolNames: ['mcp__fixture__echo'] },
    });
    await run(new Agent({ name: 'filtered', model, mcpServers: [server] }), 'x');
    expect(offered(requests[0]!)).toEqual(['mcp__fixture__echo']);
    await server.close();
  });

  it("the server's list_changed clears the cached list: a tool added at run time is offered", async () => {
    const [server] = mcpServers(manager, { cacheToolsList: true });
    const before = (await server!.listTools()).map((t) => t.name);
    expect(before).not.toContain('mcp__fixture__late');
    const changed = new Promise<void>((resolve) => {
      const off = manager.on('toolschange', (e) => {
        if (e.added.some((t) => t.tool === 'late')) {
          off();
          resolve();
        }
      });
    });
    await server!.callTool('mcp__fixture__add_tool', {});
    await changed;
    expect((await server!.listTools()).map((t) => t.name)).toContain('mcp__fixture__late');
    await server!.close();
  });

  it('an aborted run cancels the tool call on the server', async () => {
    const { model } = scriptedModel({ name: 'mcp__fixture__wait', args: {} });
    const agent = new Agent({ name: 'a', model, mcpServers: mcpServers(manager) });
    const controller = new AbortController();
    const started = stderrLine(manager, 'wait: started');
    const cancelled = stderrLine(manager, 'wait: cancelled');
    const running = run(agent, 'wait', { signal: controller.signal });
    await started;
    controller.abort(new Error('stop'));
    await expect(running).rejects.toThrow();
    await cancelled;
  });
});

describe('@mcpkit/openai-agents: _meta both ways', () => {
  // The probe server (tests/fixtures/ui-probe-server.mjs) answers echo_meta with the
  // request's _meta and puts a _meta of its own on the result.
  const probe = fileURLToPath(new URL('../fixtures/ui-probe-server.mjs', import.meta.url));
  const { servers } = resolveConfig({
    sources: [
      {
        scope: 'dynamic',
        source: 'openai-agents _meta test',
        value: { mcpServers: { probe: { command: process.execPath, args: [probe] } } },
      },
    ],
  });
  const manager = new McpManager({ servers, clientInfo: { name: 'oa-meta', version: '0' } });
  beforeAll(() => manager.connectAll());
  afterAll(() => manager.close());

  it("the SDK's toolMetaResolver reaches the server as the request _meta; the result's _meta is kept", async () => {
    const { model } = scriptedModel({ name: 'mcp__probe__echo_meta', args: {} });
    const [server] = mcpServers(manager, {
      toolMetaResolver: (context) => ({ 'host/tool': context.toolName }),
    });
    const result = await run(new Agent({ name: 'a', model, mcpServers: [server!] }), 'x');
    // The model's second turn repeats the tool output it was sent: the echoed _meta.
    expect(String(result.finalOutput)).toContain('\\"host/tool\\":\\"mcp__probe__echo_meta\\"');
    const direct = await server!.callToolResult('mcp__probe__echo_meta', {}, { 'host/n': 1 });
    expect(direct).toMatchObject({ _meta: { 'probe/echoed': true } });
    await server!.close();
  });
});

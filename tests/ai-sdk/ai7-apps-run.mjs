// Run by apps.test.ts on Node 22 with ai7-hooks.mjs: generateText of ai 7 with its own mock
// model offered the tool set of a manager with MCP Apps servers (built packages). Prints one
// JSON line: the tools offered and what the model was sent for typed_result.
// Usage: node --import ./ai7-hooks.mjs ai7-apps-run.mjs '<mcpServers JSON>'
import { createRequire } from 'node:module';
import { createToolSet } from '@mcpkit/ai-sdk';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const mcpServers = JSON.parse(process.argv[2]);
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const calls = [];
let step = 0;
const model = new MockLanguageModelV4({
  doGenerate: async (options) => {
    calls.push(options);
    step++;
    return {
      content:
        step === 1
          ? [
              {
                type: 'tool-call',
                toolCallId: 'call-1',
                toolName: 'mcp__probe__typed_result',
                input: '{}',
              },
            ]
          : [{ type: 'text', text: 'done' }],
      finishReason: { unified: step === 1 ? 'tool-calls' : 'stop', raw: undefined },
      usage,
      warnings: [],
    };
  },
});
const { servers } = resolveConfig({
  sources: [{ scope: 'dynamic', source: 'ai7 apps', value: { mcpServers } }],
});
const manager = new McpManager({ servers, apps: true });
try {
  await manager.connectAll();
  const tools = await createToolSet(manager);
  await generateText({ model, tools, prompt: 'count', stopWhen: stepCountIs(2) });
  const sent = calls[1].prompt
    .flatMap((m) => (m.role === 'tool' ? m.content : []))
    .find((p) => p.type === 'tool-result')?.output;
  const ai = createRequire(import.meta.url)('ai/package.json').version;
  console.log(JSON.stringify({ ai, offered: (calls[0].tools ?? []).map((t) => t.name), sent }));
} finally {
  await manager.close();
}

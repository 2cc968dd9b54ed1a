// Run by ai7.test.ts on Node 22 with ai7-hooks.mjs: generateText of ai 7 with its own mock
// model (MockLanguageModelV4) calls MCP tools of a real server-everything (stdio) through
// the built @mcpkit/manager and @mcpkit/ai-sdk. Prints one JSON line of what it saw.
// Usage: node --import ./ai7-hooks.mjs ai7-run.mjs <server-everything entry>
import { createRequire } from 'node:module';
import { createToolSet, ToolResultError } from '@mcpkit/ai-sdk';
import { resolveConfig } from '@mcpkit/config';
import { McpManager } from '@mcpkit/manager';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { toolResultsIn, usage } from '../support/language-model-prompt.mjs';

const everythingEntry = process.argv[2];

/** Step 1 calls the tool; step 2 answers with the tool results it was sent. */
function scriptedModel(toolName, input) {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      step++;
      return {
        content:
          step === 1
            ? [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }]
            : [{ type: 'text', text: JSON.stringify(toolResultsIn(options).map((r) => r.output)) }],
        finishReason: { unified: step === 1 ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

const { servers } = resolveConfig({
  sources: [
    {
      scope: 'dynamic',
      source: 'ai 7 test',
      value: {
        mcpServers: { everything: { command: process.execPath, args: [everythingEntry, 'stdio'] } },
      },
    },
  ],
});
const manager = new McpManager({ servers });
const out = {
  node: process.version,
  ai: createRequire(import.meta.url)('ai7/package.json').version,
};
try {
  const snapshot = await manager.connectAll();
  out.states = snapshot.servers.map((s) => s.state);

  const progress = [];
  const tools = await createToolSet(manager, { onProgress: (e) => progress.push(e) });
  const echoModel = scriptedModel('mcp__everything__echo', { message: 'hello 7' });
  const echo = await generateText({
    model: echoModel,
    tools,
    prompt: 'echo',
    stopWhen: stepCountIs(2),
  });
  out.echo = {
    output: echo.steps[0].toolResults[0]?.output,
    metadata: echo.steps[0].toolResults[0]?.toolMetadata,
    sent: toolResultsIn(echoModel.doGenerateCalls[1])[0]?.output,
    text: echo.text,
  };

  const errorModel = scriptedModel('mcp__everything__get-sum', { a: 'x' });
  const failed = await generateText({
    model: errorModel,
    tools,
    prompt: 'add',
    stopWhen: stepCountIs(2),
  });
  const toolError = failed.steps[0].content.find((p) => p.type === 'tool-error');
  out.error = {
    isToolResultError: ToolResultError.isInstance(toolError?.error),
    message: toolError?.error?.message,
    sent: toolResultsIn(errorModel.doGenerateCalls[1])[0]?.output,
  };

  await generateText({
    model: scriptedModel('mcp__everything__trigger-long-running-operation', {
      duration: 0.3,
      steps: 3,
    }),
    tools,
    prompt: 'run',
  });
  out.progress = progress.map((e) => [e.toolCallId, e.progress, e.total]);
} finally {
  await manager.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);

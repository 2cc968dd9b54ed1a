import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { toStandardSchema } from '@mastra/core/schema';
import { MockLanguageModelV3 } from 'ai/test';
import { simulateReadableStream } from 'ai';

const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
let step = 0;
const model = new MockLanguageModelV3({
  doGenerate: async (options) => {
    step++;
    console.error('tools offered', JSON.stringify(options.tools?.map((t) => [t.name, t.inputSchema])));
    console.error('prompt', JSON.stringify(options.prompt.filter(m=>m.role==='tool')));
    return step === 1
      ? { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'fx_echo', input: JSON.stringify({ message: 'hi' }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] }
      : { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
  },
});
const echo = createTool({
  id: 'fx_echo',
  description: 'echo',
  inputSchema: toStandardSchema({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }),
  execute: async (input, ctx) => { console.error('exec', input, Object.keys(ctx), !!ctx.abortSignal); return { content: [{ type: 'text', text: 'echo ' + input.message }] }; },
});
const agent = new Agent({ id: 'a', name: 'a', instructions: 'x', model, tools: { fx_echo: echo } });
const r = await agent.generate('hi');
console.log(JSON.stringify({ text: r.text, toolResults: r.toolResults, steps: r.steps?.length }, null, 1).slice(0, 3000));

import { MockLanguageModelV3 } from 'ai/test';

// The language model spec's types, taken from the mock so no extra package is needed.
type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
type Content = GenerateResult['content'][number];
type PromptMessage = CallOptions['prompt'][number];
/** A tool-result part of a prompt message. */
export type ToolResultPart = Extract<
  Extract<PromptMessage, { role: 'tool' }>['content'][number],
  { type: 'tool-result' }
>;

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One tool call the model makes in its first step. */
export interface PlannedCall {
  toolName: string;
  input: Record<string, unknown>;
}

/** The tool results the AI SDK put into a prompt, as the model sees them. */
export function toolResultsIn(options: CallOptions): ToolResultPart[] {
  return options.prompt.flatMap((m) =>
    m.role === 'tool' ? m.content.filter((p): p is ToolResultPart => p.type === 'tool-result') : [],
  );
}

/**
 * The AI SDK's own mock language model (`ai/test`), scripted: its first step calls the
 * given tools; its second step answers with the JSON of the tool results it was sent.
 * Every call's options (tools offered, prompt) stay in `model.doGenerateCalls`.
 */
export function scriptedModel(calls: PlannedCall[]): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options): Promise<GenerateResult> => {
      step++;
      const content: Content[] =
        step === 1
          ? calls.map((c, i) => ({
              type: 'tool-call',
              toolCallId: `call-${i + 1}`,
              toolName: c.toolName,
              input: JSON.stringify(c.input),
            }))
          : [{ type: 'text', text: JSON.stringify(toolResultsIn(options).map((r) => r.output)) }];
      return {
        content,
        finishReason: { unified: step === 1 ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

// For the scripted AI SDK language models of the Node 22 run scripts (ai7-run.mjs,
// mastra/agent-run.mjs): the usage a step reports, and the tool results a prompt carries.

/** One token in, one out: what a scripted step reports. */
export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The tool-result parts of a model call's prompt, in order. */
export const toolResultsIn = (options) =>
  options.prompt.flatMap((m) =>
    m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : [],
  );

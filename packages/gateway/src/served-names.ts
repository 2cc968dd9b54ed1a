import type { Prompt, Tool } from '@mcpkit/protocol';
import { composeNames } from './compose/names.js';
import { transformTool } from './compose/transform.js';
import type { CompositionView } from './compose/view.js';

/** A backend's tool as served: the tool (shaped by the composition), or `authenticate`. */
export interface ToolPair {
  server: string;
  item: string;
  /** Undefined for the `authenticate` tool of a backend that needs a sign-in. */
  tool?: Tool;
  toBackend?: (args: Record<string, unknown> | undefined) => unknown;
}

export interface PromptPair {
  server: string;
  item: string;
  prompt: Prompt;
}

export interface ServedNamesInput {
  servers: readonly string[];
  /** A backend's tools and prompts as the manager last listed them. */
  lists: (server: string) => { tools: readonly Tool[]; prompts: readonly Prompt[] } | undefined;
  /** Whether a backend needs a sign-in: it gets an `authenticate` tool. */
  needsAuth: (server: string) => boolean;
  view: CompositionView;
  allowTool: (server: string, tool: string) => boolean;
  naming: { separator: string; prefix: boolean };
  /** A problem of the composition (each once per config) or a name collision. */
  warn: (text: string) => void;
  /** Composition problems already warned about; added to. */
  warned: Set<string>;
}

/**
 * The served names of every backend's tools and prompts: filtered and shaped by the
 * composition, named by the gateway's naming, collisions warned about.
 */
export function servedNames(input: ServedNamesInput): {
  tools: Map<string, ToolPair>;
  prompts: Map<string, PromptPair>;
} {
  const { view, allowTool, warned, warn } = input;
  const toolPairs: ToolPair[] = [];
  const promptPairs: PromptPair[] = [];
  for (const server of input.servers) {
    if (!view.serves(server)) continue;
    const lists = input.lists(server);
    for (const tool of lists?.tools ?? []) {
      if (!allowTool(server, tool.name) || !view.allowsTool(server, tool.name)) continue;
      const composition = view.tool(server, tool.name);
      if (!composition) {
        toolPairs.push({ server, item: tool.name, tool });
        continue;
      }
      const shaped = transformTool(server, tool, composition);
      if ('problems' in shaped) {
        for (const problem of shaped.problems)
          if (!warned.has(problem)) {
            warned.add(problem);
            warn(`gateway config: ${problem}; the tool is not served`);
          }
        continue;
      }
      toolPairs.push({ server, item: tool.name, tool: shaped.tool, toBackend: shaped.toBackend });
    }
    if (input.needsAuth(server)) toolPairs.push({ server, item: 'authenticate' });
    for (const prompt of lists?.prompts ?? [])
      promptPairs.push({ server, item: prompt.name, prompt });
  }
  const naming = { ...input.naming, labelOf: (server: string) => view.prefixOf(server) };
  const tools = composeNames(toolPairs, {
    ...naming,
    fixedName: (server, item) => view.nameOf(server, item),
  });
  const prompts = composeNames(promptPairs, { ...naming, fixedName: () => undefined });
  for (const c of [...tools.collisions, ...prompts.collisions])
    warn(
      `name "${c.name}" is offered by ${c.kept.map((k) => `"${k.server}" (${k.item})`).join(' and ')}; both kept, the later renamed`,
    );
  const byPair = <T extends { server: string; item: string }>(
    names: Map<string, { server: string; item: string }>,
    list: T[],
  ) => {
    const pairs = new Map(list.map((p) => [`${p.server}\u0000${p.item}`, p]));
    return new Map([...names].map(([name, p]) => [name, pairs.get(`${p.server}\u0000${p.item}`)!]));
  };
  return { tools: byPair(tools.names, toolPairs), prompts: byPair(prompts.names, promptPairs) };
}

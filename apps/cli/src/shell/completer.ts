import type { McpManager } from '@mcpkit/manager';
import { neutralize } from '../terminal/neutralize.js';

/** The shell's commands, in the order `help` lists them. */
export const SHELL_COMMANDS = [
  'servers',
  'tools',
  'call',
  'read',
  'prompt',
  'reconnect',
  'enable',
  'disable',
  'login',
  'help',
  'exit',
] as const;

/** Commands whose first argument is a server name. */
const TAKES_SERVER = new Set([
  'tools',
  'read',
  'prompt',
  'reconnect',
  'enable',
  'disable',
  'login',
]);

/**
 * The names Tab completes, kept up to date from the manager (after each connect and each
 * list change), so that completing never waits on a server.
 */
export class ShellNames {
  servers: string[] = [];
  tools: Array<{ server: string; tool: string; name: string }> = [];
  prompts: Array<{ server: string; prompt: string }> = [];
  resources: Array<{ server: string; uri: string }> = [];

  constructor(servers: readonly string[]) {
    this.servers = [...servers].sort();
  }

  /** Fetches every list anew (a server that fails to list simply offers nothing). */
  async refresh(manager: McpManager): Promise<void> {
    const [tools, prompts, resources] = await Promise.all([
      manager.tools().catch(() => []),
      manager.commands().catch(() => []),
      manager.listResources().catch(() => []),
    ]);
    this.tools = tools
      .filter((t) => !t.pseudo)
      .map((t) => ({ server: t.server, tool: t.tool, name: t.name }));
    this.prompts = prompts.map((p) => ({ server: p.server, prompt: p.prompt }));
    this.resources = resources.map((r) => ({ server: r.server, uri: r.uri }));
  }

  /** What may follow `words` (the complete words before the one being typed). */
  candidates(words: readonly string[]): string[] {
    const [command, server] = words;
    if (words.length === 0) return [...SHELL_COMMANDS];
    if (words.length === 1) {
      // `call` takes `<server> <tool>` or a host name (`mcp__server__tool`) as its first word.
      if (command === 'call') return [...this.servers, ...this.tools.map((t) => t.name)];
      if (command === 'help') return [...SHELL_COMMANDS];
      return TAKES_SERVER.has(command!) ? this.servers : [];
    }
    if (words.length === 2) {
      if (command === 'call')
        return this.tools.filter((t) => t.server === server).map((t) => t.tool);
      if (command === 'prompt')
        return this.prompts.filter((p) => p.server === server).map((p) => p.prompt);
      if (command === 'read')
        return this.resources.filter((r) => r.server === server).map((r) => r.uri);
    }
    return [];
  }

  /** node:readline's completer: the matches for the word under the cursor, and that word. */
  readonly complete = (line: string): [string[], string] => {
    const words = line.trimStart().split(/\s+/);
    const current = words.pop() ?? '';
    const hits = [...new Set(this.candidates(words))]
      .filter((c) => c.startsWith(current) && typable(c))
      .sort();
    // A single match is completed with the space after it, ready for the next word.
    return [hits.length === 1 ? [`${hits[0]} `] : hits, current];
  };
}

/**
 * A name Tab may offer: one word with no character a terminal acts on. readline prints
 * several matches as they are, so a server's name with an escape sequence in it would
 * reach the terminal raw; such a name cannot be typed as one word anyway.
 */
function typable(name: string): boolean {
  return name !== '' && !/\s/.test(name) && neutralize(name) === name;
}

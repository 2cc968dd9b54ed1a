import type { GetPromptResult, Prompt, PromptArgument } from '@mcpkit/protocol';
import { ManagerError, ManagerErrorCode } from './errors.js';
import { cut } from './text.js';

/** A server's prompt as a host command (a slash command, say). */
export interface HostCommand {
  /** `mcp__<server>__<prompt>` under the tool name rules. */
  readonly name: string;
  readonly server: string;
  readonly prompt: string;
  readonly description: string;
  readonly arguments: readonly PromptArgument[];
  /**
   * Runs the prompt. A string is split on whitespace onto the declared arguments in order
   * (the last one takes the rest); a record is passed as is.
   */
  run(
    input?: string | Record<string, string>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<GetPromptResult['messages']>;
}

/** Maps `"a b c d"` onto declared arguments `[x, y]` as `{ x: 'a', y: 'b c d' }`. */
export function parseCommandArguments(
  server: string,
  prompt: string,
  declared: readonly PromptArgument[],
  input: string | Record<string, string> | undefined,
): Record<string, string> {
  let args: Record<string, string>;
  if (input === undefined) args = {};
  else if (typeof input === 'string') {
    const words = input.trim() === '' ? [] : input.trim().split(/\s+/);
    args = {};
    declared.forEach((arg, i) => {
      if (i >= words.length) return;
      args[arg.name] = i === declared.length - 1 ? words.slice(i).join(' ') : words[i]!;
    });
  } else args = { ...input };
  const missing = declared.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length > 0) {
    throw new ManagerError(
      ManagerErrorCode.InvalidArguments,
      server,
      `server "${server}": prompt "${prompt}" needs ${missing.map((m) => `"${m}"`).join(', ')}; pass ${declared.map((a) => `<${a.name}${a.required ? '' : '?'}>`).join(' ')}`,
    );
  }
  return args;
}

export function makeHostCommand(
  server: string,
  prompt: Prompt,
  name: string,
  descriptionChars: number,
  get: (
    args: Record<string, string>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ) => Promise<GetPromptResult>,
): HostCommand {
  const declared = prompt.arguments ?? [];
  return Object.freeze({
    name,
    server,
    prompt: prompt.name,
    description: cut(prompt.description ?? prompt.title ?? '', descriptionChars),
    arguments: declared,
    run: async (
      input?: string | Record<string, string>,
      options?: { signal?: AbortSignal; timeoutMs?: number },
    ) => (await get(parseCommandArguments(server, prompt.name, declared, input), options)).messages,
  });
}

import type { Prompt } from '@mcpkit/protocol';
import type { RegistryEntry } from './registry-entries.js';
import type { EntryHost } from './served-entries-host.js';

/** A served prompt: `prompts/get` forwarded to its backend under the backend's own name. */
export function promptEntry(
  host: EntryHost,
  name: string,
  server: string,
  prompt: Prompt,
): RegistryEntry {
  const { name: original, ...rest } = prompt;
  const complete = host.completers(
    server,
    { type: 'ref/prompt', name: original },
    (prompt.arguments ?? []).map((a) => a.name),
  );
  const definition = complete ? { ...rest, complete } : rest;
  return {
    key: `${server}\u0000${JSON.stringify(prompt)}`,
    add: () =>
      host.server.registerPrompt(
        name,
        definition as never,
        (args, ctx) =>
          host.forward(
            {
              kind: 'prompt',
              server,
              name: original,
              method: 'prompts/get',
              params: { name, arguments: args },
            },
            ctx,
            (client, options) => client.getPrompt(original, args, options),
          ) as never,
      ),
  };
}

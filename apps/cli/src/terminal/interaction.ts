import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { UrlElicitation } from '@mcpkit/client';
import type { ManagerHandlers } from '@mcpkit/manager';
import type { ElicitRequestParams } from '@mcpkit/protocol';
import { neutralize } from './neutralize.js';

type ElicitResult = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

export interface InteractionOptions {
  /** stdin and stdout are a terminal: form fields are asked one by one. */
  interactive: boolean;
  /** `--elicit '<json>'`: the answer to the next form elicitation, accepted as is. */
  elicit?: Record<string, unknown>;
  /** `--no-browser`: URL elicitations are printed, not opened. */
  noBrowser: boolean;
  /** `--root <dir>` (absolute), or the working directory; `false` with `--no-roots`. */
  roots: readonly string[] | false;
  /** Lines that carry what a server says (stderr, neutralized; its words as it sent them). */
  say: (line: string) => void;
  /** A URL the user must open (its query kept). */
  link: (line: string) => void;
  /**
   * The user cancelled a form (Esc, Ctrl-C): the server was answered `cancel` and the
   * call goes on, so the command learns it here to end with a failure status.
   */
  oncancel?: (server: string) => void;
  /**
   * Called before a question takes the terminal (a progress line is erased, the shell's
   * line editor paused); the function it returns is called once the question is over.
   */
  pause?: () => () => void;
  /**
   * Without a terminal, what a declined form tells the user to do (default: the one-shot
   * command's `--elicit`); `again`: when the tool asks the same once more.
   */
  declinedHint?: { first: string; again: string };
}

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  minimum?: number;
  maximum?: number;
}

type Clack = typeof import('@clack/prompts');

/** One field asked on the terminal; `undefined` when the user cancelled (Ctrl-C, Esc). */
async function askField(
  clack: Clack,
  name: string,
  field: FieldSchema,
  required: boolean,
  signal: AbortSignal,
): Promise<string | number | boolean | undefined | symbol> {
  const label = neutralize(
    `${field.title ?? name}${field.description ? ` — ${field.description}` : ''}${required ? '' : ' (optional)'}`,
  );
  const choices =
    field.enum?.map((v) => ({ value: String(v), label: neutralize(String(v)) })) ??
    field.oneOf?.map((o) => ({
      value: String(o.const),
      label: neutralize(o.title ?? String(o.const)),
    }));
  if (choices) {
    return clack.select({
      message: label,
      options: choices,
      ...(field.default !== undefined ? { initialValue: String(field.default) } : {}),
      signal,
    });
  }
  if (field.type === 'boolean') {
    return clack.confirm({
      message: label,
      initialValue: typeof field.default === 'boolean' ? field.default : false,
      signal,
    });
  }
  const numeric = field.type === 'number' || field.type === 'integer';
  const answer = await clack.text({
    message: label,
    ...(field.default !== undefined ? { defaultValue: String(field.default) } : {}),
    ...(field.default !== undefined ? { placeholder: String(field.default) } : {}),
    signal,
    validate: (value) => {
      const text = value ?? '';
      if (text === '' && field.default === undefined && required) return 'required';
      if (!numeric || text === '') return undefined;
      const n = Number(text);
      if (!Number.isFinite(n)) return 'a number, please';
      if (field.type === 'integer' && !Number.isInteger(n)) return 'a whole number, please';
      if (field.minimum !== undefined && n < field.minimum) return `at least ${field.minimum}`;
      if (field.maximum !== undefined && n > field.maximum) return `at most ${field.maximum}`;
      return undefined;
    },
  });
  if (clack.isCancel(answer)) return answer;
  if (answer === '' || answer === undefined) return undefined;
  return numeric ? Number(answer) : answer;
}

/** A form elicitation asked field by field from its requested schema. */
async function askForm(
  server: string,
  params: Extract<ElicitRequestParams, { requestedSchema: unknown }>,
  signal: AbortSignal,
): Promise<ElicitResult> {
  const clack = await import('@clack/prompts');
  clack.intro(neutralize(`${server} asks: ${params.message}`));
  const schema = params.requestedSchema as {
    properties: Record<string, FieldSchema>;
    required?: string[];
  };
  const content: NonNullable<ElicitResult['content']> = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = await askField(
      clack,
      name,
      field ?? {},
      schema.required?.includes(name) ?? false,
      signal,
    );
    if (clack.isCancel(value)) {
      // The answer `cancel` is sent: the server decides what its call does then.
      clack.cancel(neutralize(`cancelled: ${server} is told you cancelled its question`));
      return { action: 'cancel' };
    }
    if (value !== undefined) content[name] = value as string | number | boolean;
  }
  clack.outro('sent');
  return { action: 'accept', content };
}

/**
 * A page the user must open: the server's message and the URL printed (escaped; the URL's
 * query kept, or the link would not work), and the browser opened unless `--no-browser`.
 * A URL the browser opener refuses (not https, nor http on this machine) is only printed.
 */
async function showPage(
  server: string,
  page: { message: string; url: string },
  options: InteractionOptions,
): Promise<void> {
  options.say(`${server} asks you to open a page: ${page.message}\n`);
  options.link(`  ${page.url}\n`);
  if (options.noBrowser) return;
  const { openInBrowser } = await import('@mcpkit/auth');
  try {
    openInBrowser(page.url);
  } catch (error) {
    options.say(`mcpkit: not opened in the browser: ${(error as Error).message}\n`);
  }
}

/**
 * A call answered -32042 (URL elicitation required): each page is shown, then the user
 * says when they are done (on a terminal) and the call is retried once. Without a terminal
 * nobody can say so: the call fails with what to do.
 */
async function finishPages(
  server: string,
  pages: readonly UrlElicitation[],
  options: InteractionOptions,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (pages.length === 0)
    throw new Error(
      `server "${server}" answered that the user must open a page first (-32042) but named no page; the server is at fault`,
    );
  for (const page of pages) await showPage(server, page, options);
  if (!options.interactive)
    throw new Error(
      `server "${server}" needs the page${pages.length === 1 ? '' : 's'} above finished first; finish ${pages.length === 1 ? 'it' : 'them'} in the browser, then run the command again (or run it on a terminal, which waits for you)`,
    );
  const clack = await import('@clack/prompts');
  const resume = options.pause?.();
  let done: boolean | symbol;
  try {
    done = await clack.confirm({
      message: `Finished in the browser? (the call to "${neutralize(server)}" is then sent again)`,
      initialValue: true,
      ...(signal ? { signal } : {}),
    });
  } finally {
    resume?.();
  }
  if (clack.isCancel(done) || done !== true)
    throw new Error(`server "${server}": the call was not sent again: the page was not finished`);
}

/**
 * What the CLI answers when a server asks something: form elicitation on a terminal,
 * `--elicit` without one; URL elicitation printed (and opened unless `--no-browser`);
 * sampling declined (the CLI has no model); roots from `--root` or the working directory.
 */
export function cliHandlers(options: InteractionOptions): (server: string) => ManagerHandlers {
  let preset = options.elicit;
  const declined = new Set<string>();
  const roots = options.roots;
  return (server) => ({
    elicitationModes: ['form', 'url'],
    elicitation: async (params, { signal }) => {
      if (params.mode === 'url') {
        await showPage(server, params as Extract<ElicitRequestParams, { mode: 'url' }>, options);
        return { action: 'accept' };
      }
      const form = params as Extract<ElicitRequestParams, { requestedSchema: unknown }>;
      if (preset) {
        const content = preset as NonNullable<ElicitResult['content']>;
        preset = undefined;
        return { action: 'accept', content };
      }
      if (!options.interactive) {
        const hint = options.declinedHint ?? {
          first: "answer it with --elicit '<json>'",
          again: "run it again with --elicit '<json>' or on a terminal",
        };
        const text = `server "${server}" asks: ${form.message} — declined: there is no terminal to ask on; ${hint.first} (fields: ${Object.keys(form.requestedSchema.properties).join(', ') || 'none'})`;
        // A 2026 server asks again in the next round: the second time the call ends here
        // with the same words instead of going round until the client gives up.
        if (declined.has(text))
          throw new Error(
            `server "${server}": the tool still needs the answer declined above; ${hint.again}`,
          );
        declined.add(text);
        options.say(`mcpkit: ${text}\n`);
        return { action: 'decline' };
      }
      const resume = options.pause?.();
      let answer: ElicitResult;
      try {
        answer = await askForm(server, form, signal);
      } finally {
        resume?.();
      }
      if (answer.action === 'cancel') options.oncancel?.(server);
      return answer;
    },
    urlElicitation: (_server, pages, { signal }) => finishPages(server, pages, options, signal),
    sampling: () => {
      options.say(
        `mcpkit: server "${server}" asked for a model completion (sampling): declined, the mcpkit CLI has no model to answer with\n`,
      );
      throw new Error('sampling declined: the mcpkit CLI has no model');
    },
    ...(roots === false
      ? {}
      : {
          roots: () =>
            roots.map((dir) => ({
              uri: pathToFileURL(dir).href,
              name: path.basename(dir) || dir,
            })),
        }),
  });
}

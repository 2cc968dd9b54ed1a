import path from 'node:path';
import { parseJsonObjectFlag } from '../core/flags.js';
import { UsageError } from '../core/io.js';
import type { CliContext, ServerSelection } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import type { TraceFile } from '../core/trace.js';
import { type CommandHelp, EVERYWHERE } from '../core/usage.js';
import type { Output } from '../terminal/output.js';
import {
  addFlags,
  allFlags,
  approvalFlags,
  appsFlags,
  configFlags,
  connectFlags,
  type Flags,
  type globalFlags,
  importFlags,
  installFlags,
  searchFlags,
  serveFlags,
  serverFlags,
} from './flag-table.js';

/**
 * The CLI's commands: each one's names, the flags it reads (node:util parseArgs options),
 * its help (per name: usage, summary, examples, and the flags that name takes when not all
 * of `flags`) and its handler. A handler loads its module when it runs (`import()`), so
 * that `--help`, `--version` and `list` load nothing else. `main.ts` parses the command
 * line with the flags of the command named (and `EVERYWHERE`'s) and dispatches here; the
 * help pages are drawn by `../core/usage.ts` from these entries and its `FLAG_WORDS`.
 *
 * A new command: one `command({ names, flags, help: { name: { group, usage, summary,
 * examples } }, run })` below, added to `commandTable`; a new flag also gets its words in
 * `FLAG_WORDS`.
 */

export { allFlags, globalFlags, serveFlags } from './flag-table.js';

type ValueOf<F extends Flags[string]> = F extends { type: 'string' }
  ? F extends { multiple: true }
    ? string[]
    : string
  : F extends { multiple: true }
    ? boolean[]
    : boolean;
/** The values of the flags `F` (each one absent when not given). */
export type ValuesOf<F extends Flags> = { -readonly [K in keyof F]?: ValueOf<F[K]> };

/** What `main.ts` gives the handler of the command it runs. */
export interface CommandCall<F extends Flags = typeof globalFlags> {
  command: string;
  /** The positionals after the command's name. */
  rest: string[];
  values: ValuesOf<typeof globalFlags & F>;
  out: Output;
  ctx: CliContext;
  selection: ServerSelection;
  json: boolean;
  showSecrets: boolean;
  /** `--timeout`, checked. */
  timeoutMs: number;
  /** `--login-timeout`, checked. */
  loginTimeoutMs: number;
  /** `--max-message-bytes`, checked. */
  maxMessageBytes: number | undefined;
  /** stdin and stdout are a terminal. */
  interactive: boolean;
  progressStream: NodeJS.WriteStream | undefined;
  /** The terminal's width when stdout is one. */
  columns: number | undefined;
  /** Made (and its signal handlers installed) only by commands that start servers. */
  shutdown(): Promise<Shutdown>;
  /** `--trace <file>`, opened (closed by `main.ts` when the command ends). */
  openTrace(): Promise<TraceFile | undefined>;
}

/** A name's help, and the flags it takes when not every one of its command's `flags`. */
export type NameHelp = CommandHelp & { flags?: readonly FlagName[] };
export type FlagName = keyof typeof allFlags;

export interface Command<F extends Flags = Flags> {
  /** The names it runs under (`enable` and `disable` are one command). */
  names: readonly string[];
  /** The flags it reads besides the ones every command takes (`EVERYWHERE`). */
  flags: F;
  /** Each name's help (every name has one). */
  help: Readonly<Record<string, NameHelp>>;
  run(call: CommandCall<F>): Promise<number>;
}

/** The flags every command that starts servers takes. */
const START = [
  'timeout',
  'max-message-bytes',
  'verbose',
  'root',
  'no-roots',
  'trace',
  'no-browser',
] as const;

const command = <F extends Flags>(c: Command<F>): Command<F> => c;

/** One set of roots for every command that starts servers (see "Roots" in the README). */
function rootsOf(call: CommandCall<typeof serverFlags>): readonly string[] | false {
  const { values, ctx } = call;
  return values['no-roots']
    ? false
    : (values.root ?? [ctx.cwd]).map((dir) => path.resolve(ctx.cwd, dir));
}

const list = command({
  names: ['list'],
  flags: {},
  help: {
    list: {
      group: 'config',
      usage: 'list',
      summary: 'every configured server: scope, file, status',
      flags: ['json'],
      examples: ['mcpkit list', 'mcpkit --json list'],
    },
  },
  async run({ out, ctx, selection, json, showSecrets }) {
    const { listCommand } = await import('./config.js');
    // It redacts the entries it prints (by position) and the URLs its messages quote.
    return await listCommand(out, ctx, selection, { json, showSecrets });
  },
});

const add = command({
  names: ['add'],
  flags: addFlags,
  help: {
    add: {
      group: 'config',
      usage: 'add [--transport t] <name> <command|url> [-- args...]',
      line: 'add <name> <command|url>',
      summary: 'add a server (a command to start, or a URL)',
      examples: [
        'mcpkit add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes',
        'mcpkit add --transport http -H "Authorization: Bearer $TOKEN" docs https://example.com/mcp',
        'mcpkit add --scope user -e API_KEY=... search -- npx -y some-mcp-server',
      ],
    },
  },
  async run({ out, ctx, rest, values }) {
    return await (await import('./config.js')).addCommand(out, ctx, rest, values);
  },
});

const addJson = command({
  names: ['add-json'],
  flags: configFlags,
  help: {
    'add-json': {
      group: 'config',
      usage: "add-json <name> '<json>'",
      summary: 'add a server given as JSON',
      examples: [
        `mcpkit add-json everything '{"command":"npx","args":["-y","@modelcontextprotocol/server-everything"]}'`,
        `mcpkit add-json --scope user docs '{"type":"http","url":"https://example.com/mcp"}'`,
      ],
    },
  },
  async run({ out, ctx, rest, values }) {
    return await (await import('./config.js')).addJsonCommand(out, ctx, rest, values.scope);
  },
});

const remove = command({
  names: ['remove'],
  flags: configFlags,
  help: {
    remove: {
      group: 'config',
      usage: 'remove <name>',
      summary: 'remove a server',
      examples: ['mcpkit remove files', 'mcpkit remove --scope user docs'],
    },
  },
  async run({ out, ctx, rest, values }) {
    return await (await import('./config.js')).removeCommand(out, ctx, rest, values.scope);
  },
});

const importServers = command({
  names: ['import'],
  flags: importFlags,
  help: {
    import: {
      group: 'config',
      usage: 'import --from <host> [file] [--dry-run]',
      line: 'import --from <host> [file]',
      summary: "import the servers of another host's config",
      examples: [
        'mcpkit import --from claude-desktop --dry-run',
        'mcpkit import --from vscode .vscode/mcp.json',
      ],
    },
  },
  async run({ out, ctx, rest, values, showSecrets }) {
    return await (await import('./config.js')).importCommand(out, ctx, rest, {
      from: values.from,
      scope: values.scope,
      dryRun: values['dry-run'],
      showSecrets,
    });
  },
});

const search = command({
  names: ['search'],
  flags: searchFlags,
  help: {
    search: {
      group: 'config',
      usage: 'search <query> [--limit n] [--registry url]',
      line: 'search <query>',
      summary: 'find servers in the MCP Registry (name, version, status, transports)',
      flags: ['registry', 'limit', 'json', 'timeout'],
      examples: ['mcpkit search filesystem', 'mcpkit --json search github --limit 5'],
    },
  },
  async run({ out, ctx, rest, values, json, timeoutMs }) {
    return await (await import('./registry.js')).searchCommand(out, ctx, rest, {
      registry: values.registry,
      limit: values.limit,
      json,
      ...(values.timeout !== undefined ? { timeoutMs } : {}),
    });
  },
});

const install = command({
  names: ['install'],
  flags: installFlags,
  help: {
    install: {
      group: 'config',
      usage: 'install <name>[@version] [--scope s] [--dry-run] [-e KEY=VALUE...]',
      line: 'install <name>[@version]',
      summary: 'add a server from the MCP Registry as a config entry',
      flags: [
        'registry',
        'scope',
        'env',
        'dry-run',
        'allow-deprecated',
        'store',
        'use',
        'as',
        'json',
        'timeout',
      ],
      examples: [
        'mcpkit install io.github.example/notes --dry-run',
        'mcpkit install --scope user -e API_KEY=... io.github.example/notes@1.2.0',
        'mcpkit install --use remote --store refs io.github.example/notes',
      ],
    },
  },
  async run({ out, ctx, rest, values, json, showSecrets, interactive, timeoutMs }) {
    return await (await import('./registry.js')).installCommand(out, ctx, rest, {
      registry: values.registry,
      scope: values.scope,
      env: values.env,
      dryRun: values['dry-run'],
      allowDeprecated: values['allow-deprecated'],
      store: values.store,
      use: values.use,
      as: values.as,
      json,
      showSecrets,
      interactive,
      ...(values.timeout !== undefined ? { timeoutMs } : {}),
    });
  },
});

const approval = command({
  names: ['approve', 'reject', 'reset-project-choices'],
  flags: approvalFlags,
  help: {
    approve: {
      group: 'config',
      usage: 'approve <name...> | approve --all',
      line: 'approve | reject <name...>',
      summary: 'which project (.mcp.json) servers may start',
      about: 'approve prints each entry it approves, whole but for its credentials.',
      examples: ['mcpkit approve notes', 'mcpkit approve --all'],
    },
    reject: {
      group: 'config',
      usage: 'reject <name...>',
      summary: 'keep project (.mcp.json) servers from starting',
      unlisted: true,
      flags: [],
      examples: ['mcpkit reject notes'],
    },
    'reset-project-choices': {
      group: 'config',
      usage: 'reset-project-choices',
      summary: 'forget those choices for this project',
      flags: [],
      examples: ['mcpkit reset-project-choices'],
    },
  },
  async run({ out, ctx, selection, command, rest, values }) {
    const { approvalCommand } = await import('./config.js');
    return await approvalCommand(
      out,
      ctx,
      selection,
      command as 'approve' | 'reject' | 'reset-project-choices',
      rest,
      values.all ?? false,
    );
  },
});

const enable = command({
  names: ['enable', 'disable'],
  flags: {},
  help: {
    enable: {
      group: 'config',
      usage: 'enable <name>',
      line: 'enable | disable <name>',
      summary: 'clear or set "disabled" in its own file',
      examples: ['mcpkit enable files', 'mcpkit disable files'],
    },
    disable: {
      group: 'config',
      usage: 'disable <name>',
      summary: 'set "disabled": true on the entry, in its own file',
      unlisted: true,
      examples: ['mcpkit disable files'],
    },
  },
  async run({ out, ctx, selection, command, rest }) {
    const { enableCommand } = await import('./enable.js');
    return await enableCommand(out, ctx, selection, command as 'enable' | 'disable', rest);
  },
});

const serve = command({
  names: ['serve'],
  flags: serveFlags,
  help: {
    serve: {
      group: 'serve',
      usage: 'serve [--http [host:]port]',
      summary: 'every server behind one MCP server (stdio by default)',
      flags: [...Object.keys(serveFlags), 'timeout', 'max-message-bytes'] as FlagName[],
      flagWords: {
        'max-message-bytes':
          'the largest message a server, or a client of the gateway, may send: a longer stdio line is answered with an error, a larger --http body gets 413 (default 67108864; 4 MiB from --http clients)',
        server: 'serve only this server (repeatable)',
      },
      examples: [
        'mcpkit serve',
        'mcpkit serve --http 8787   (bearer token in $XDG_STATE_HOME/mcpkit/serve-token)',
        'mcpkit serve --http 0.0.0.0:8787 --gateway-config team.jsonc --redis redis://redis:6379',
      ],
    },
  },
  async run(call) {
    const { out, ctx, selection, rest, values } = call;
    const shutdown = await call.shutdown();
    if (rest.length > 0) throw new UsageError('usage: mcpkit serve [--http [host:]port]');
    const [{ resolveServers, problems }, { serveCommand }, { VERSION }] = await Promise.all([
      import('../core/server-selection.js'),
      import('./serve.js'),
      import('../core/usage.js'),
    ]);
    const resolved = await resolveServers(ctx, selection);
    for (const line of problems(resolved)) out.stderr(`mcpkit: ${line}\n`);
    return await serveCommand(
      out,
      ctx,
      resolved,
      values,
      call.timeoutMs,
      VERSION,
      shutdown,
      call.interactive,
    );
  },
});

const apps = command({
  names: ['apps'],
  flags: appsFlags,
  help: {
    apps: {
      group: 'use',
      usage: 'apps [server] [--port n]',
      summary: "a local page that runs a tool and shows its MCP App (the server's view)",
      about:
        "Serves 127.0.0.1 only and prints a one-time link (it sets a session cookie); the view runs in a sandboxed iframe with its declared CSP, and may call only its own server's tools meant for apps.",
      flags: ['port', 'timeout'],
      examples: ['mcpkit apps', 'mcpkit apps pdf', 'mcpkit apps --port 8788'],
    },
  },
  async run(call) {
    const { out, ctx, selection, rest, values } = call;
    const shutdown = await call.shutdown();
    const [{ resolveServers, problems }, { appsCommand }, { VERSION }] = await Promise.all([
      import('../core/server-selection.js'),
      import('./apps.js'),
      import('../core/usage.js'),
    ]);
    const resolved = await resolveServers(ctx, selection);
    for (const line of problems(resolved)) out.stderr(`mcpkit: ${line}\n`);
    return await appsCommand(out, ctx, resolved, rest, values, call.timeoutMs, VERSION, shutdown);
  },
});

const doctor = command({
  names: ['doctor'],
  flags: serverFlags,
  help: {
    doctor: {
      group: 'use',
      usage: 'doctor [name...]',
      summary: 'check each server, each finding with its next step',
      about: 'Each finding says what to do next; exit 1 when any is a warning or an error.',
      flags: ['json', 'timeout', 'root', 'no-roots', 'trace', 'no-browser'],
      examples: ['mcpkit doctor', 'mcpkit doctor everything', 'mcpkit --json doctor'],
    },
  },
  async run(call) {
    const { out, ctx, selection, rest, values, json, timeoutMs } = call;
    const shutdown = await call.shutdown();
    const { resolveServers } = await import('../core/server-selection.js');
    const resolved = await resolveServers(ctx, selection);
    const trace = await call.openTrace();
    const [{ doctorCommand }, { cliHandlers }] = await Promise.all([
      import('./doctor.js'),
      import('../terminal/interaction.js'),
    ]);
    // The handlers (so the capabilities and roots) every command declares; doctor
    // asks nothing of the user, so a form is declined as without a terminal.
    const handlers = cliHandlers({
      interactive: false,
      noBrowser: values['no-browser'] ?? false,
      roots: rootsOf(call),
      say: out.serverStderr,
      link: out.link,
    });
    return await doctorCommand(out, ctx, resolved, rest, {
      json,
      timeoutMs,
      shutdown,
      handlers,
      ...(trace ? { trace } : {}),
    });
  },
});

const shell = command({
  names: ['shell'],
  flags: serverFlags,
  help: {
    shell: {
      group: 'use',
      usage: 'shell',
      summary: 'an interactive session on every server',
      flags: ['timeout', 'login-timeout', 'root', 'no-roots', 'trace', 'no-browser'],
      examples: ['mcpkit shell', 'mcpkit shell < commands.txt'],
    },
  },
  async run(call) {
    const { ctx, selection, values, timeoutMs, showSecrets, loginTimeoutMs } = call;
    const shutdown = await call.shutdown();
    const { resolveServers } = await import('../core/server-selection.js');
    const resolved = await resolveServers(ctx, selection);
    const trace = await call.openTrace();
    const { shellCommand } = await import('./shell.js');
    return await shellCommand(ctx, selection, resolved, shutdown, {
      timeoutMs,
      showSecrets,
      roots: rootsOf(call),
      ...(trace ? { trace } : {}),
      noBrowser: values['no-browser'] ?? false,
      loginTimeoutMs,
    });
  },
});

/** The commands that connect to the selected servers (and login/logout), in server-commands.ts. */
const serverCommands = command({
  names: [
    'servers',
    'get',
    'tools',
    'call',
    'resources',
    'read',
    'prompts',
    'prompt',
    'login',
    'logout',
  ],
  flags: connectFlags,
  help: {
    servers: {
      group: 'use',
      usage: 'servers [name...]',
      summary: 'connect to every enabled server and show its state',
      about: 'Exit 1 when a started server is not connected or is degraded.',
      flags: [...START, 'server', 'json', 'no-progress'],
      examples: ['mcpkit servers', 'mcpkit servers everything', 'mcpkit --json servers'],
    },
    get: {
      group: 'use',
      usage: 'get <name>',
      summary: 'one server in full, its tools with their parameters',
      flags: [...START, 'json', 'no-progress'],
      examples: ['mcpkit get everything', 'mcpkit --json get everything'],
    },
    tools: {
      group: 'use',
      usage: 'tools [server...]',
      summary: 'the tools of every server, with their parameters',
      flags: [...START, 'server', 'json', 'no-progress'],
      examples: ['mcpkit tools', 'mcpkit tools everything', 'mcpkit --json tools'],
    },
    call: {
      group: 'use',
      usage: 'call <server> <tool> [json | - | key=value...]',
      line: 'call <server> <tool> [args]',
      summary: 'call a tool: JSON, - (stdin) or key=value',
      about:
        "key=value pairs are typed from the tool's input schema; the arguments are checked against it before they are sent. mcpkit call <server> <tool> --help shows the tool's parameters. Exit 1 when the tool reports an error.",
      flags: [...START, 'json', 'no-progress', 'elicit', 'sanitize', 'no-check'],
      examples: [
        'mcpkit call everything get-sum a=2 b=3',
        `mcpkit call everything echo '{"message": "hi"}'`,
        'mcpkit call everything get-sum --help',
      ],
    },
    resources: {
      group: 'use',
      usage: 'resources [server...]',
      summary: 'the resources of every server',
      flags: [...START, 'server', 'json', 'no-progress'],
      examples: ['mcpkit resources', 'mcpkit resources everything'],
    },
    read: {
      group: 'use',
      usage: 'read <server> <uri>',
      summary: 'read a resource',
      flags: [...START, 'json', 'no-progress', 'elicit', 'sanitize'],
      examples: ['mcpkit read everything demo://resource/static/document/architecture.md'],
    },
    prompts: {
      group: 'use',
      usage: 'prompts [server...]',
      summary: 'the prompts of every server',
      flags: [...START, 'server', 'json', 'no-progress'],
      examples: ['mcpkit prompts', 'mcpkit --json prompts'],
    },
    prompt: {
      group: 'use',
      usage: 'prompt <server> <name> [json | key=value...]',
      line: 'prompt <server> <name> [args]',
      summary: 'get a prompt (its arguments are strings)',
      flags: [...START, 'json', 'no-progress', 'elicit', 'sanitize'],
      examples: [
        'mcpkit prompt everything simple-prompt',
        'mcpkit prompt everything args-prompt city=Paris',
        `mcpkit prompt everything args-prompt '{"city": "Paris"}'`,
      ],
    },
    login: {
      group: 'auth',
      usage: 'login <server> [--no-browser]',
      line: 'login | logout <server>',
      summary: 'sign in to a remote server (OAuth), or forget its tokens',
      about:
        'An entry with "oauth": { "xaa": true } signs in once at the identity provider of your settings (identityProvider) and gets each such server its token from that sign-in (enterprise-managed sign-in; the CLI README says how).',
      flags: ['no-browser', 'login-timeout', 'timeout'],
      examples: ['mcpkit login docs', 'mcpkit login docs --no-browser'],
    },
    logout: {
      group: 'auth',
      usage: 'logout <server>',
      summary: 'forget its tokens and registration',
      unlisted: true,
      flags: [],
      examples: ['mcpkit logout docs'],
    },
  },
  async run(call) {
    const { command, rest, out, ctx, selection, values, json } = call;
    const shutdown = await call.shutdown();
    const [{ serverCommand }, { cliHandlers }] = await Promise.all([
      import('./server-commands.js'),
      import('../terminal/interaction.js'),
    ]);
    const stream = call.progressStream;
    const trace = await call.openTrace();
    const elicit =
      values.elicit === undefined ? undefined : parseJsonObjectFlag(values.elicit, '--elicit');
    const cancelled = new Set<string>();
    // A call's progress line (a terminal, not --json, -v or --no-progress): what the
    // handlers print or ask erases it first.
    const live = stream && !json && !values['no-progress'] && !values.verbose;
    const callProgress =
      live && command === 'call'
        ? new (await import('../terminal/call-progress.js')).ProgressLine(stream)
        : undefined;
    const around =
      (write: (text: string) => void) =>
      (text: string): void =>
        callProgress ? callProgress.around(() => write(text)) : write(text);
    const handlers = cliHandlers({
      oncancel: (server) => cancelled.add(server),
      interactive: call.interactive,
      ...(elicit ? { elicit } : {}),
      noBrowser: values['no-browser'] ?? false,
      roots: rootsOf(call),
      say: around(out.serverStderr),
      link: around(out.link),
      ...(callProgress ? { pause: () => callProgress.hide() } : {}),
    });
    const code = await serverCommand(command, rest, out, ctx, selection, shutdown, {
      json,
      timeoutMs: call.timeoutMs,
      ...(call.maxMessageBytes !== undefined ? { maxMessageBytes: call.maxMessageBytes } : {}),
      verbose: values.verbose ?? false,
      showSecrets: call.showSecrets,
      describe: values.help ?? false,
      noCheck: values['no-check'] ?? false,
      ...(call.columns !== undefined ? { columns: call.columns } : {}),
      server: values.server,
      noBrowser: values['no-browser'] ?? false,
      loginTimeoutMs: call.loginTimeoutMs,
      handlers,
      ...(trace ? { trace } : {}),
      ...(callProgress ? { callProgress } : {}),
      ...(stream && live
        ? {
            progress: async () =>
              (await import('../terminal/progress.js')).terminalProgress({
                stream,
                color: !ctx.env.NO_COLOR,
                clean: out.redact,
              }),
          }
        : {}),
    });
    if (cancelled.size === 0) return code;
    // Not 130: nothing was interrupted. The server got the answer "cancel" and its
    // result is printed above; only the user's question went unanswered.
    for (const server of cancelled)
      out.stderr(`mcpkit: you cancelled the question of server "${server}"; it was told so\n`);
    return code === 0 ? 1 : code;
  },
});

/** A command as `main.ts` sees it: given every parsed flag, it reads its own. */
export interface TableCommand {
  names: readonly string[];
  flags: Flags;
  help: Readonly<Record<string, NameHelp>>;
  run(call: CommandCall<typeof allFlags>): Promise<number>;
}

/** The flags a command name takes: its own list, else its command's, with `EVERYWHERE`'s. */
export function flagsOf(name: string): FlagName[] {
  const c = commandTable.get(name);
  const own = c ? (c.help[name]?.flags ?? (Object.keys(c.flags) as FlagName[])) : [];
  return [...new Set([...own, ...EVERYWHERE])];
}

/** The parse options of those flags. */
export function parseOptionsOf(names: readonly FlagName[]): Flags {
  return Object.fromEntries(names.map((n) => [n, allFlags[n]]));
}

/** Every command, by each of its names. */
export const commandTable: ReadonlyMap<string, TableCommand> = new Map(
  // In this order in `mcpkit --help` (by group).
  (
    [
      serverCommands,
      doctor,
      shell,
      serve,
      apps,
      list,
      add,
      addJson,
      remove,
      importServers,
      search,
      install,
      approval,
      enable,
    ] as TableCommand[]
  ).flatMap((c) => c.names.map((name) => [name, c] as const)),
);

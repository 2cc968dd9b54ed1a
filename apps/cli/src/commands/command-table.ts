import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { parseJsonObjectFlag } from '../core/flags.js';
import { UsageError } from '../core/io.js';
import type { CliContext, ServerSelection } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import type { TraceFile } from '../core/trace.js';
import type { Output } from '../terminal/output.js';

/**
 * The CLI's commands: each one's names, the flags it reads (node:util parseArgs options)
 * and its handler. A handler loads its module when it runs (`import()`), so that `--help`,
 * `--version` and `list` load nothing else. `main.ts` parses the command line and
 * dispatches here; the usage text of each command is in `../core/usage.ts`.
 */

type Flags = NonNullable<ParseArgsConfig['options']>;

/** The flags every command takes: `main.ts` reads them before it dispatches. */
export const globalFlags = {
  config: { type: 'string', short: 'c', multiple: true },
  'strict-config': { type: 'boolean' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'login-timeout': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  sanitize: { type: 'boolean' },
  'show-secrets': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Flags;

/** The flags of every command that starts servers (doctor, shell and the server commands). */
const serverFlags = {
  'no-browser': { type: 'boolean' },
  root: { type: 'string', multiple: true },
  'no-roots': { type: 'boolean' },
  trace: { type: 'string' },
} as const satisfies Flags;

const configFlags = {
  scope: { type: 'string' },
} as const satisfies Flags;

const addFlags = {
  ...configFlags,
  transport: { type: 'string' },
  env: { type: 'string', short: 'e', multiple: true },
  header: { type: 'string', short: 'H', multiple: true },
} as const satisfies Flags;

const importFlags = {
  ...configFlags,
  from: { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const satisfies Flags;

const approvalFlags = {
  all: { type: 'boolean' },
} as const satisfies Flags;

const selectFlags = {
  server: { type: 'string', short: 's', multiple: true },
  verbose: { type: 'boolean', short: 'v' },
} as const satisfies Flags;

const connectFlags = {
  ...serverFlags,
  ...selectFlags,
  'no-progress': { type: 'boolean' },
  elicit: { type: 'string' },
} as const satisfies Flags;

/** `mcpkit serve`'s own flags (with `--server`, `--verbose` and the global ones). */
export const serveFlags = {
  ...selectFlags,
  http: { type: 'string' },
  token: { type: 'string' },
  separator: { type: 'string' },
  'no-prefix': { type: 'boolean' },
  tools: { type: 'string', multiple: true },
  'sse-poll-ms': { type: 'string' },
  'backend-wait-ms': { type: 'string' },
} as const satisfies Flags;

/**
 * Every flag of every command. The command line is parsed with all of them, as before the
 * flags were split by command: a flag that another command reads is accepted and ignored.
 */
export const allFlags = {
  ...globalFlags,
  ...addFlags,
  ...importFlags,
  ...approvalFlags,
  ...connectFlags,
  ...serveFlags,
} as const satisfies Flags;

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
  /** Made (and its signal handlers installed) only by commands that start servers. */
  shutdown(): Promise<Shutdown>;
  /** `--trace <file>`, opened (closed by `main.ts` when the command ends). */
  openTrace(): Promise<TraceFile | undefined>;
}

export interface Command<F extends Flags = Flags> {
  /** The names it runs under (`enable` and `disable` are one command). */
  names: readonly string[];
  /** The flags it reads besides the global ones. */
  flags: F;
  run(call: CommandCall<F>): Promise<number>;
}

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
  async run({ out, ctx, selection, json, showSecrets }) {
    const { listCommand } = await import('./config.js');
    // It redacts the entries it prints (by position) and the URLs its messages quote.
    return await listCommand(out, ctx, selection, { json, showSecrets });
  },
});

const add = command({
  names: ['add'],
  flags: addFlags,
  async run({ out, ctx, rest, values }) {
    return await (await import('./config.js')).addCommand(out, ctx, rest, values);
  },
});

const addJson = command({
  names: ['add-json'],
  flags: configFlags,
  async run({ out, ctx, rest, values }) {
    return await (await import('./config.js')).addJsonCommand(out, ctx, rest, values.scope);
  },
});

const remove = command({
  names: ['remove'],
  flags: configFlags,
  async run({ out, ctx, rest, values }) {
    return await (await import('./config.js')).removeCommand(out, ctx, rest, values.scope);
  },
});

const importServers = command({
  names: ['import'],
  flags: importFlags,
  async run({ out, ctx, rest, values, showSecrets }) {
    return await (await import('./config.js')).importCommand(out, ctx, rest, {
      from: values.from,
      scope: values.scope,
      dryRun: values['dry-run'],
      showSecrets,
    });
  },
});

const approval = command({
  names: ['approve', 'reject', 'reset-project-choices'],
  flags: approvalFlags,
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
  async run({ out, ctx, selection, command, rest }) {
    const { enableCommand } = await import('./enable.js');
    return await enableCommand(out, ctx, selection, command as 'enable' | 'disable', rest);
  },
});

const serve = command({
  names: ['serve'],
  flags: serveFlags,
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

const doctor = command({
  names: ['doctor'],
  flags: serverFlags,
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
  run(call: CommandCall<typeof allFlags>): Promise<number>;
}

/** Every command, by each of its names. */
export const commandTable: ReadonlyMap<string, TableCommand> = new Map(
  (
    [
      list,
      add,
      addJson,
      remove,
      importServers,
      approval,
      enable,
      serve,
      doctor,
      shell,
      serverCommands,
    ] as TableCommand[]
  ).flatMap((c) => c.names.map((name) => [name, c] as const)),
);

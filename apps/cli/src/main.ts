import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  allFlags,
  commandTable,
  type FlagName,
  flagsOf,
  parseOptionsOf,
} from './commands/command-table.js';
import { parseBytesFlag, parseMsFlag } from './core/flags.js';
import type { Io } from './core/io.js';
import { UsageError } from './core/io.js';
import type { CliContext, ServerSelection } from './core/server-selection.js';
import type { InterruptedError, Shutdown } from './core/signals.js';
import type { TraceFile } from './core/trace.js';
import { commandHelp, topHelp, usageLine, VERSION } from './core/usage.js';

export type { Io } from './core/io.js';
export { VERSION } from './core/usage.js';

/** `mcpkit --help`: every command name with its help, in the table's order. */
export function usage(): string {
  return topHelp(
    [...commandTable].map(([name, c]) => [name, c.help[name]!] as const),
    allFlags,
  );
}

/** `mcpkit login`'s whole sign-in, unless --login-timeout says otherwise. */
const LOGIN_TIMEOUT_MS = 300_000;

export interface MainOptions {
  /**
   * Signal handling: its signal cancels what runs, it closes every connection on SIGINT,
   * SIGTERM and SIGHUP. `bin.ts` installs one (made only once a command needs it); by
   * default none is installed.
   */
  shutdown?: Shutdown | (() => Promise<Shutdown>);
  /** Whether stdout is a terminal: a server's results are then neutralized. */
  stdoutIsTTY?: boolean;
  /** stdin and stdout are a terminal: a server's questions are asked there. */
  interactive?: boolean;
  /** Where live progress is drawn while connecting (a terminal); none when absent. */
  progressStream?: NodeJS.WriteStream;
  /** stdout's width when it is a terminal: listings are cut to it. */
  columns?: number;
}

/**
 * Runs the CLI; resolves with the exit code. Modules are loaded per command (`import()`),
 * so that `--version` and `--help` load nothing but this file and `list` only the config.
 */
export async function main(
  argv: readonly string[],
  io: Io,
  ctx: CliContext = { cwd: process.cwd(), home: homedir(), env: process.env },
  options: MainOptions = {},
): Promise<number> {
  // The command is the first word that is not a flag (or a flag's value): found with every
  // flag known, then the line is parsed again with only the flags that command takes.
  let command: string | undefined;
  try {
    command = parse(argv, allFlags, false).positionals[0];
  } catch (error) {
    io.stderr(usageLine(parseErrorText((error as Error).message)));
    return 2;
  }
  const known = command !== undefined && commandTable.has(command);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv, parseOptionsOf(known ? flagsOf(command!) : flagsOf('')), true);
  } catch (error) {
    io.stderr(await flagError(error as Error & { code?: string }, known ? command : undefined));
    return 2;
  }
  const values = parsed.values as ReturnType<typeof parse>['values'];
  const rest = parsed.positionals.slice(1);
  // `call <server> <tool> --help` is the tool's own help: the command shows it.
  const toolHelp = values.help && command === 'call' && rest.length >= 2;
  if (values.help && !toolHelp) {
    const handler = known ? commandTable.get(command!) : undefined;
    io.stdout(
      handler ? commandHelp(handler.help[command!]!, flagsOf(command!), allFlags) : usage(),
    );
    return 0;
  }
  if (values.version) {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  if (!command) {
    io.stderr(usageLine('no command given'));
    return 2;
  }
  // `mcpkit help [command]` is `mcpkit [command] --help`.
  const asked = command === 'help' ? rest[0] : command;
  if (command === 'help' && (asked === undefined || commandTable.has(asked))) {
    const of = asked === undefined ? undefined : commandTable.get(asked);
    io.stdout(of ? commandHelp(of.help[asked!]!, flagsOf(asked!), allFlags) : usage());
    return 0;
  }
  const handler = command === 'help' ? undefined : commandTable.get(command);
  if (!handler) {
    const word = asked!;
    const { didYouMean } = await import('./core/suggest.js');
    io.stderr(
      usageLine(`unknown command "${word}"${didYouMean(word, [...commandTable.keys(), 'help'])}`),
    );
    return 2;
  }
  let timeoutMs: number;
  let loginTimeoutMs: number;
  let maxMessageBytes: number | undefined;
  try {
    timeoutMs = values.timeout === undefined ? 60_000 : parseMsFlag(values.timeout, '--timeout');
    loginTimeoutMs =
      values['login-timeout'] === undefined
        ? LOGIN_TIMEOUT_MS
        : parseMsFlag(values['login-timeout'], '--login-timeout');
    if (values['max-message-bytes'] !== undefined)
      maxMessageBytes = parseBytesFlag(values['max-message-bytes'], '--max-message-bytes');
  } catch (error) {
    io.stderr(usageLine((error as Error).message));
    return 2;
  }
  // Made (and its signal handlers installed) only for commands that start servers.
  let shutdown: Shutdown | undefined;
  let trace: TraceFile | undefined;
  const showSecrets = values['show-secrets'] ?? false;
  const { Output } = await import('./terminal/output.js');
  // Everything printed from here on is neutralized for a terminal; the CLI's own messages
  // have the URLs they quote redacted (server output is data: never searched for values).
  const out = new Output(io, {
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    sanitize: values.sanitize ?? false,
    showSecrets,
    muted: () => shutdown?.signal.aborted ?? false,
  });
  const selection: ServerSelection = {
    config: values.config,
    strict: values['strict-config'] ?? false,
  };
  try {
    return await handler.run({
      command,
      rest,
      values,
      out,
      ctx,
      selection,
      json: values.json ?? false,
      showSecrets,
      timeoutMs,
      loginTimeoutMs,
      maxMessageBytes,
      interactive: options.interactive ?? false,
      progressStream: options.progressStream,
      columns: options.columns,
      shutdown: async () => {
        shutdown =
          typeof options.shutdown === 'function'
            ? await options.shutdown()
            : (options.shutdown ?? new (await import('./core/signals.js')).Shutdown());
        return shutdown;
      },
      openTrace: async () => {
        if (values.trace === undefined) return undefined;
        const { TraceFile } = await import('./core/trace.js');
        trace = new TraceFile(path.resolve(ctx.cwd, values.trace));
        return trace;
      },
    });
  } catch (error) {
    if (shutdown?.signal.aborted) return (shutdown.signal.reason as InterruptedError).exitCode;
    if (error instanceof UsageError) {
      out.stderr(usageLine(error.message, command));
      return 2;
    }
    out.stderr(`mcpkit: ${(await import('./core/gate.js')).errorText(error)}\n`);
    return 1;
  } finally {
    trace?.close();
  }
}

function parse(
  argv: readonly string[],
  options: NonNullable<Parameters<typeof parseArgs>[0]>['options'],
  strict: boolean,
) {
  const parsed = parseArgs({ args: [...argv], allowPositionals: true, options, strict });
  return parsed as unknown as {
    values: import('./commands/command-table.js').ValuesOf<typeof allFlags>;
    positionals: string[];
  };
}

/**
 * A flag the command does not take: named, with the nearest flag it does take, or the
 * commands that take it. Other parse errors (a missing value) as node:util words them.
 */
async function flagError(error: Error & { code?: string }, command: string | undefined) {
  const flag = /'(-[^']*)'/.exec(error.message)?.[1];
  if (error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || !flag)
    return usageLine(error.message, command);
  const { didYouMean } = await import('./core/suggest.js');
  const takes = flagsOf(command ?? '');
  const name = flag.replace(/^-+/, '').split('=')[0]!;
  const long = flag.startsWith('--');
  const others = long
    ? [...commandTable.keys()].filter((c) => flagsOf(c).includes(name as FlagName))
    : [];
  const where = command ? `mcpkit ${command}` : 'mcpkit (without a command)';
  const hint =
    didYouMean(
      long ? `--${name}` : flag,
      takes.flatMap((f) => {
        const short = (allFlags[f] as { short?: string }).short;
        return short ? [`--${f}`, `-${short}`] : [`--${f}`];
      }),
    ) ||
    (others.length > 0
      ? ` — ${long ? `--${name}` : flag} is a flag of ${others.slice(0, 4).join(', ')}${others.length > 4 ? ', …' : ''}`
      : '');
  return usageLine(`${where} has no flag ${long ? `--${name}` : flag}${hint}`, command);
}

/**
 * node:util's parse errors in the CLI's words: its unknown-option message ends with an
 * unbalanced quote (`as in '-- "-y"`).
 */
function parseErrorText(message: string): string {
  const unknown = /^Unknown option '(.*?)'\. /.exec(message);
  if (!unknown) return message;
  const option = unknown[1]!;
  return `unknown option "${option}"; an argument that starts with "-" goes after "--", as in: -- ${option}`;
}

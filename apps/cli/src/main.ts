import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { allFlags, commandTable } from './commands/command-table.js';
import { parseBytesFlag, parseMsFlag } from './core/flags.js';
import type { Io } from './core/io.js';
import { UsageError } from './core/io.js';
import type { CliContext, ServerSelection } from './core/server-selection.js';
import type { InterruptedError, Shutdown } from './core/signals.js';
import type { TraceFile } from './core/trace.js';
import { commandHelp, USAGE, usageLine, VERSION } from './core/usage.js';

export type { Io } from './core/io.js';
export { USAGE, VERSION } from './core/usage.js';

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
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(usageLine(parseErrorText((error as Error).message)));
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help) {
    io.stdout(command && commandTable.has(command) ? commandHelp(command) : USAGE);
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
  const handler = commandTable.get(command);
  if (!handler) {
    io.stderr(usageLine(`unknown command "${command}"`));
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

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: allFlags,
  });
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

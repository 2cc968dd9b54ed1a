import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cliOptions } from './cli-options.js';
import type { Io } from './config-commands.js';
import { parseBytesFlag, parseMsFlag } from './numbers.js';
import type { CliContext, ServerSelection } from './servers.js';
import type { InterruptedError, Shutdown } from './signals.js';
import { COMMANDS, commandHelp, USAGE, UsageError, usageLine, VERSION } from './usage.js';

export type { Io } from './config-commands.js';
export { USAGE, VERSION } from './usage.js';

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
    io.stderr(usageLine((error as Error).message));
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help) {
    io.stdout(command && COMMANDS.includes(command) ? commandHelp(command) : USAGE);
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
  if (!COMMANDS.includes(command)) {
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
  let trace: import('./trace.js').TraceFile | undefined;
  const showSecrets = values['show-secrets'] ?? false;
  const { Output } = await import('./output.js');
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
  const json = values.json ?? false;
  // One set of roots for every command that starts servers (doctor, shell, call, tools…),
  // so that each talks to servers configured the same way (see "Roots" in the README).
  const roots: readonly string[] | false = values['no-roots']
    ? false
    : (values.root ?? [ctx.cwd]).map((dir) => path.resolve(ctx.cwd, dir));
  const openTrace = async () => {
    if (values.trace === undefined) return undefined;
    const { TraceFile } = await import('./trace.js');
    trace = new TraceFile(path.resolve(ctx.cwd, values.trace));
    return trace;
  };
  try {
    switch (command) {
      case 'list': {
        const { listCommand } = await import('./config-commands.js');
        // It redacts the entries it prints (by position) and the URLs its messages quote.
        return await listCommand(out, ctx, selection, { json, showSecrets });
      }
      case 'add':
      case 'add-json':
      case 'remove':
      case 'approve':
      case 'reject':
      case 'reset-project-choices':
      case 'import': {
        const c = await import('./config-commands.js');
        if (command === 'add') return await c.addCommand(out, ctx, rest, values);
        if (command === 'add-json') return await c.addJsonCommand(out, ctx, rest, values.scope);
        if (command === 'remove') return await c.removeCommand(out, ctx, rest, values.scope);
        if (command === 'import')
          return await c.importCommand(out, ctx, rest, {
            from: values.from,
            scope: values.scope,
            dryRun: values['dry-run'],
            showSecrets,
          });
        return await c.approvalCommand(out, ctx, selection, command, rest, values.all ?? false);
      }
      case 'enable':
      case 'disable': {
        const { enableCommand } = await import('./enable-command.js');
        return await enableCommand(out, ctx, selection, command, rest);
      }
      case 'serve': {
        shutdown =
          typeof options.shutdown === 'function'
            ? await options.shutdown()
            : (options.shutdown ?? new (await import('./signals.js')).Shutdown());
        if (rest.length > 0) throw new UsageError('usage: mcpkit serve [--http [host:]port]');
        const [{ resolveServers, problems }, { serveCommand }] = await Promise.all([
          import('./servers.js'),
          import('./serve/serve-command.js'),
        ]);
        const resolved = await resolveServers(ctx, selection);
        for (const line of problems(resolved)) out.stderr(`mcpkit: ${line}\n`);
        return await serveCommand(
          out,
          ctx,
          resolved,
          values,
          timeoutMs,
          VERSION,
          shutdown,
          options.interactive ?? false,
        );
      }
      case 'doctor':
      case 'shell': {
        shutdown =
          typeof options.shutdown === 'function'
            ? await options.shutdown()
            : (options.shutdown ?? new (await import('./signals.js')).Shutdown());
        const { resolveServers } = await import('./servers.js');
        const resolved = await resolveServers(ctx, selection);
        await openTrace();
        if (command === 'doctor') {
          const [{ doctorCommand }, { cliHandlers }] = await Promise.all([
            import('./doctor.js'),
            import('./interaction.js'),
          ]);
          // The handlers (so the capabilities and roots) every command declares; doctor
          // asks nothing of the user, so a form is declined as without a terminal.
          const handlers = cliHandlers({
            interactive: false,
            noBrowser: values['no-browser'] ?? false,
            roots,
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
        }
        const { shellCommand } = await import('./shell.js');
        return await shellCommand(ctx, selection, resolved, shutdown, {
          timeoutMs,
          showSecrets,
          roots,
          ...(trace ? { trace } : {}),
          noBrowser: values['no-browser'] ?? false,
          loginTimeoutMs,
        });
      }
      default: {
        shutdown =
          typeof options.shutdown === 'function'
            ? await options.shutdown()
            : (options.shutdown ?? new (await import('./signals.js')).Shutdown());
        const [{ serverCommand }, { cliHandlers }] = await Promise.all([
          import('./server-commands.js'),
          import('./interaction.js'),
        ]);
        const stream = options.progressStream;
        await openTrace();
        const elicit =
          values.elicit === undefined ? undefined : parseElicit(values.elicit, '--elicit');
        const cancelled = new Set<string>();
        const handlers = cliHandlers({
          oncancel: (server) => cancelled.add(server),
          interactive: options.interactive ?? false,
          ...(elicit ? { elicit } : {}),
          noBrowser: values['no-browser'] ?? false,
          roots,
          say: out.serverStderr,
          link: out.link,
        });
        const code = await serverCommand(command, rest, out, ctx, selection, shutdown, {
          json,
          timeoutMs,
          ...(maxMessageBytes !== undefined ? { maxMessageBytes } : {}),
          verbose: values.verbose ?? false,
          showSecrets,
          server: values.server,
          noBrowser: values['no-browser'] ?? false,
          loginTimeoutMs,
          handlers,
          ...(trace ? { trace } : {}),
          ...(stream && !json && !values['no-progress'] && !values.verbose
            ? {
                progress: async () =>
                  (await import('./progress.js')).terminalProgress({
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
      }
    }
  } catch (error) {
    if (shutdown?.signal.aborted) return (shutdown.signal.reason as InterruptedError).exitCode;
    if (error instanceof UsageError) {
      out.stderr(usageLine(error.message, command));
      return 2;
    }
    out.stderr(`mcpkit: ${(await import('./gate.js')).errorText(error)}\n`);
    return 1;
  } finally {
    trace?.close();
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: cliOptions,
  });
}

/** `--elicit '<json>'`: a JSON object, the content of the next form elicitation's answer. */
function parseElicit(text: string, flag: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${flag} must be a JSON object, like '{"confirm": true}'`);
  return value as Record<string, unknown>;
}

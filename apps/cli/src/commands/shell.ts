import { clearLine, createInterface, cursorTo } from 'node:readline';
import type { LoadResult } from '@mcpkit/config';
import type { McpManager } from '@mcpkit/manager';
import { errorText } from '../core/advice.js';
import { openManager } from '../core/open-manager.js';
import { type CliContext, notStartedHint, type ServerSelection } from '../core/server-selection.js';
import type { InterruptedError, Shutdown } from '../core/signals.js';
import type { TraceFile } from '../core/trace.js';
import { runShellLine, type ShellOptions, type ShellState, shellError } from '../shell/commands.js';
import { ShellNames } from '../shell/completer.js';
import { ListChanges, stateLine } from '../shell/events.js';
import { ShellHistory, shellHistoryFile } from '../shell/history.js';
import { ProgressLine } from '../terminal/call-progress.js';
import { cliHandlers } from '../terminal/interaction.js';
import { Output } from '../terminal/output.js';
import { historyScrubber } from '../terminal/redact-output.js';

export interface ShellCommandOptions extends ShellOptions {
  showSecrets: boolean;
  /** `--root` (absolute) or the working directory; `false` with `--no-roots`. */
  roots: readonly string[] | false;
  /** `--trace`: every message in both directions. */
  trace?: TraceFile;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WriteStream;
  /** Where errors and server events go when `output` is not a terminal (default stderr). */
  errors?: NodeJS.WritableStream;
}

/**
 * `mcpkit shell`: one manager for the whole session, a readline prompt with completion
 * and history, server events printed above the line being typed. Ctrl-C cancels the
 * running command; Ctrl-D or `exit` closes the manager (every process tree) and exits 0.
 * SIGTERM and SIGHUP go through the CLI's Shutdown, as for every command.
 */
export async function shellCommand(
  ctx: CliContext,
  selection: ServerSelection,
  resolved: LoadResult,
  shutdown: Shutdown,
  options: ShellCommandOptions,
): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  // A prompt, line editing, history and Ctrl-D need both ends on a terminal; with lines
  // piped in (`printf … | mcpkit shell`) the shell runs them as a script, even when its
  // output is a terminal (where results are still shown escaped).
  const terminal = output.isTTY === true && (input as { isTTY?: boolean }).isTTY === true;
  let prompting = false;
  // A call's progress notifications, on one line (a terminal only: none from a pipe).
  const progress = terminal ? new ProgressLine(output) : undefined;
  // Everything printed goes above the prompt: the line being typed is drawn again after it
  // (and above a call's progress line, drawn again after it too).
  const print = (text: string) => {
    if (!prompting || !terminal) {
      if (progress) progress.around(() => output.write(text));
      else output.write(text);
      return;
    }
    clearLine(output, 0);
    cursorTo(output, 0);
    output.write(text);
    rl.prompt(true);
  };
  const errors = options.errors ?? process.stderr;
  const out = new Output(
    // On a terminal everything is drawn above the prompt; from a pipe, errors go to stderr.
    { stdout: print, stderr: terminal ? print : (text) => void errors.write(text) },
    { stdoutIsTTY: output.isTTY === true, sanitize: false, showSecrets: options.showSecrets },
  );
  const names = new ShellNames(resolved.servers.map((s) => s.name));
  // Lines are kept after the shell state exists; an enable or disable there changes which
  // entries' credentials count.
  const history = new ShellHistory(shellHistoryFile(ctx), (line) =>
    historyScrubber(state.resolved.servers)(line),
  );
  await history.load();
  const rl = createInterface({
    input,
    output,
    terminal,
    prompt: 'mcpkit> ',
    completer: names.complete,
    history: history.newestFirst,
    historySize: 1000,
    removeHistoryDuplicates: true,
  });

  const manager: McpManager = openManager(
    resolved.servers.filter((s) => s.status === 'enabled'),
    ctx,
    {
      timeoutMs: options.timeoutMs,
      shutdown,
      longLived: true,
      ...(options.trace ? { trace: options.trace } : {}),
      // As for every command (roots, URL elicitation, sampling declined): on a terminal a
      // form is asked field by field with the line editor paused; from a pipe it is declined.
      handlers: cliHandlers({
        interactive: terminal,
        noBrowser: options.noBrowser,
        roots: options.roots,
        say: out.serverStderr,
        link: out.link,
        pause: () => pauseEditor(),
        oncancel: (server) =>
          out.stderr(`mcpkit: you cancelled the question of server "${server}"; it was told so\n`),
        declinedHint: {
          first: 'run "mcpkit shell" on a terminal to answer it',
          again: 'run "mcpkit shell" on a terminal to answer it',
        },
      }),
      onwarning: (server, error) =>
        out.stderr(`[${server || 'mcpkit'}] warning: ${errorText(error)}\n`),
    },
  );
  // A question takes the terminal: the line editor stops reading keys (the question's own
  // prompt reads them) and gets them back, in raw mode, once it is answered or cancelled.
  const pauseEditor = (): (() => void) => {
    const show = progress?.hide();
    const keys = input.listeners('keypress') as Array<(...args: unknown[]) => void>;
    for (const key of keys) input.removeListener('keypress', key);
    rl.pause();
    return () => {
      for (const key of keys) input.on('keypress', key);
      const tty = input as NodeJS.ReadStream;
      if (tty.isTTY) tty.setRawMode(true);
      rl.resume();
      show?.();
    };
  };
  const state: ShellState = {
    out,
    ctx,
    selection,
    shutdown,
    manager,
    resolved,
    names,
    options,
    columns: () => (output.isTTY ? output.columns : undefined),
    ...(progress ? { progress } : {}),
  };
  const changes = new ListChanges();
  const refresh = () => void names.refresh(manager).catch(() => {});
  manager.on('statechange', ({ state: next }) => {
    const line = stateLine(next);
    if (line) out.stderr(`${line}\n`);
    refresh();
  });
  for (const [event, kind] of [
    ['toolschange', 'tools'],
    ['promptschange', 'prompts'],
    ['resourceschange', 'resources'],
  ] as const) {
    manager.on(event, (d) => {
      refresh();
      // Names and URIs a server listed: its data, neutralized only.
      const line = changes.apply(kind, d);
      if (line) out.serverStderr(`${line}\n`);
    });
  }

  for (const entry of resolved.servers)
    if (entry.status !== 'enabled')
      out.stderr(`[${entry.name}] not started: ${notStartedHint(entry)}\n`);
  const count = resolved.servers.length;
  out.stdout(`mcpkit shell: ${count} server${count === 1 ? '' : 's'}; "help" lists the commands\n`);
  // Connected in the background: the prompt is usable at once, each server's line comes as
  // it settles. A command waits for the first connect to settle (Ctrl-C ends the wait).
  const connecting = manager.connectAll({ signal: shutdown.signal }).then(
    () => {},
    () => {},
  );

  let running: AbortController | undefined;
  // One command at a time: lines typed meanwhile wait their turn.
  let busy = false;
  const queue: string[] = [];
  // The input is over (Ctrl-D, `exit`, the end of a pipe); closing: the manager is closing.
  let ended = false;
  let closing = false;
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });
  const finish = () => {
    if (closing) return;
    closing = true;
    prompting = false;
    running?.abort(new Error('the shell is closing'));
    void manager
      .close()
      .catch(() => {})
      .then(() =>
        resolveDone(
          shutdown.signal.aborted ? (shutdown.signal.reason as InterruptedError).exitCode : 0,
        ),
      );
  };
  rl.on('close', () => {
    ended = true;
    // Ctrl-D on a terminal leaves now; from a pipe, the lines read so far still run.
    if (terminal) {
      output.write('\n');
      finish();
    } else if (!busy) finish();
  });
  shutdown.signal.addEventListener('abort', () => finish(), { once: true });

  const showPrompt = () => {
    if (!terminal || closing) return;
    prompting = true;
    rl.prompt();
  };

  rl.on('SIGINT', () => {
    if (running) {
      running.abort(new Error('cancelled (Ctrl-C)'));
      return;
    }
    // As in a shell: Ctrl-C drops the line being typed.
    prompting = false;
    output.write('^C\n');
    rl.write(null, { ctrl: true, name: 'e' });
    rl.write(null, { ctrl: true, name: 'u' });
    showPrompt();
  });

  const runNext = async (): Promise<void> => {
    const line = queue.shift();
    if (line === undefined) {
      busy = false;
      if (ended) finish();
      else showPrompt();
      return;
    }
    const trimmed = line.trim();
    if (trimmed === 'exit' || trimmed === 'quit') {
      busy = false;
      ended = true;
      rl.close();
      finish();
      return;
    }
    // A script piped in is not the user's history.
    if (terminal && trimmed !== '')
      await history
        .add(line)
        .catch((error: Error) =>
          out.stderr(`mcpkit: history not kept in ${history.file}: ${error.message}\n`),
        );
    running = new AbortController();
    const signal = AbortSignal.any([shutdown.signal, running.signal]);
    try {
      if (trimmed !== '') {
        await untilAborted(connecting, signal);
        await runShellLine(state, trimmed, signal);
      }
    } catch (error) {
      if (closing) return;
      if (running.signal.aborted) out.stderr('cancelled\n');
      else if (!shutdown.signal.aborted)
        out.stderr(`mcpkit: ${shellError(trimmed, error as Error)}\n`);
    } finally {
      running = undefined;
    }
    if (!closing) await runNext();
  };

  rl.on('line', (line) => {
    queue.push(line);
    if (busy || closing) return;
    busy = true;
    prompting = false;
    void runNext();
  });
  showPrompt();
  return await done;
}

/** `promise`, or the signal's reason as soon as it is aborted. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

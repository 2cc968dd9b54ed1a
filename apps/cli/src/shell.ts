import { clearLine, createInterface, cursorTo } from 'node:readline';
import type { LoadResult } from '@mcpkit/config';
import type { ListDiff, McpManager, ServerState } from '@mcpkit/manager';
import { summarize } from './messages.js';
import { Output } from './output.js';
import { secretHolders } from './server-commands.js';
import { type CliContext, notStartedHint, type ServerSelection } from './servers.js';
import { openSession } from './session.js';
import { runShellLine, type ShellOptions, type ShellState, shellError } from './shell-commands.js';
import { ShellNames } from './shell-completer.js';
import { ShellHistory, shellHistoryFile } from './shell-history.js';
import type { InterruptedError, Shutdown } from './signals.js';

export interface ShellCommandOptions extends ShellOptions {
  showSecrets: boolean;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WriteStream;
}

/** One line about a server's new state, in the shell's words; undefined when not worth a line. */
export function stateLine(state: ServerState): string | undefined {
  const name = state.name;
  switch (state.state) {
    case 'connected':
      return `[${name}] connected · ${state.protocolVersion} (${state.era}) · ${state.connectMs} ms`;
    case 'pending':
      if (state.reconnectAttempt === 0) return undefined;
      return `[${name}] reconnecting (${state.reconnectAttempt}/${state.maxReconnectAttempts})${state.reason ? `: ${state.reason}` : ''}`;
    case 'needs-auth':
      return `[${name}] needs-auth: run "login ${name}"`;
    default: {
      const s = summarize(state);
      return `[${name}] ${s.state}: ${s.reason}${s.next ? `; ${s.next}` : ''}`;
    }
  }
}

function diffLine(kind: string, d: ListDiff<{ name: string }>): string {
  const parts = [
    ...d.added.map((i) => `+${i.name}`),
    ...d.removed.map((i) => `-${i.name}`),
    ...d.changed.map((i) => `~${i.name}`),
  ];
  return `[${d.server}] ${kind} changed: ${parts.join(' ')}`;
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
  const terminal = output.isTTY === true;
  let prompting = false;
  // Everything printed goes above the prompt: the line being typed is drawn again after it.
  const print = (text: string) => {
    if (!prompting || !terminal) {
      output.write(text);
      return;
    }
    clearLine(output, 0);
    cursorTo(output, 0);
    output.write(text);
    rl.prompt(true);
  };
  const out = new Output(
    { stdout: print, stderr: print },
    { stdoutIsTTY: terminal, sanitize: false, showSecrets: options.showSecrets },
  );
  out.scrubber.addServers(secretHolders(resolved));
  const names = new ShellNames(resolved.servers.map((s) => s.name));
  const history = new ShellHistory(shellHistoryFile(ctx), (line) => out.scrubber.text(line));
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

  const manager: McpManager = openSession(
    resolved.servers.filter((s) => s.status === 'enabled'),
    ctx,
    {
      timeoutMs: options.timeoutMs,
      shutdown,
      onwarning: (server, error) =>
        out.stderr(`[${server || 'mcpkit'}] warning: ${error.message}\n`),
    },
  );
  const state: ShellState = {
    out,
    ctx,
    selection,
    shutdown,
    manager,
    resolved,
    names,
    options,
  };
  // A list change is said once a server's first lists are in; what a crash removes and a
  // reconnect adds back is the state line's business, not a list change.
  const listed = new Set<string>();
  const refresh = () => void names.refresh(manager).catch(() => {});
  manager.on('statechange', ({ name, state: next }) => {
    if (next.state !== 'connected') listed.delete(name);
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
      if (manager.state(d.server)?.state !== 'connected') return;
      if (!listed.has(`${kind}:${d.server}`)) {
        listed.add(`${kind}:${d.server}`);
        return;
      }
      const items = (i: { name?: string; tool?: string; prompt?: string; uri?: string }) => ({
        name: i.tool ?? i.prompt ?? i.uri ?? i.name ?? '?',
      });
      out.stderr(
        `${diffLine(kind, {
          server: d.server,
          added: d.added.map(items),
          removed: d.removed.map(items),
          changed: d.changed.map(items),
        })}\n`,
      );
    });
  }

  for (const entry of resolved.servers)
    if (entry.status !== 'enabled')
      out.stderr(`[${entry.name}] not started: ${notStartedHint(entry)}\n`);
  out.stdout(`mcpkit shell: ${resolved.servers.length} servers; "help" lists the commands\n`);
  // Connected in the background: the prompt is usable at once, each server's line comes as it settles.
  void manager.connectAll({ signal: shutdown.signal }).catch(() => {});

  let running: AbortController | undefined;
  // One command at a time: lines typed meanwhile wait their turn.
  let busy = false;
  const queue: string[] = [];
  let closing = false;
  const done = new Promise<number>((resolve) => {
    const finish = async () => {
      closing = true;
      prompting = false;
      running?.abort(new Error('the shell is closing'));
      await manager.close().catch(() => {});
      resolve(shutdown.signal.aborted ? (shutdown.signal.reason as InterruptedError).exitCode : 0);
    };
    rl.on('close', () => {
      if (terminal) output.write('\n');
      void finish();
    });
    shutdown.signal.addEventListener('abort', () => rl.close(), { once: true });
  });

  rl.on('SIGINT', () => {
    if (running) {
      running.abort(new Error('cancelled (Ctrl-C)'));
      return;
    }
    // As in a shell: Ctrl-C drops the line being typed.
    prompting = false;
    output.write('^C\n');
    rl.write(null, { ctrl: true, name: 'u' });
    prompting = true;
    rl.prompt();
  });

  const runNext = async (): Promise<void> => {
    const line = queue.shift();
    if (line === undefined) {
      busy = false;
      prompting = true;
      rl.prompt();
      return;
    }
    const trimmed = line.trim();
    if (trimmed === 'exit' || trimmed === 'quit') {
      rl.close();
      return;
    }
    await history
      .add(line)
      .catch((error: Error) =>
        out.stderr(`mcpkit: history not kept in ${history.file}: ${error.message}\n`),
      );
    running = new AbortController();
    const signal = AbortSignal.any([shutdown.signal, running.signal]);
    try {
      await runShellLine(state, trimmed, signal);
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
  prompting = true;
  rl.prompt();
  return await done;
}

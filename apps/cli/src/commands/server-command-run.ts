import type { McpClient } from '@mcpkit/client';
import type { LoadResult, ResolvedServer } from '@mcpkit/config';
import type { HostTool, ListKind, ManagerHandlers, McpManager, ServerState } from '@mcpkit/manager';
import {
  errorText,
  failedStateOf,
  failureLine,
  listFailure,
  once,
  toolIssueLines,
} from '../core/advice.js';
import { UsageError } from '../core/io.js';
import { openManager } from '../core/open-manager.js';
import {
  type CliContext,
  nothingConfiguredText,
  notStartedHint,
} from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import { didYouMean } from '../core/suggest.js';
import type { TraceFile } from '../core/trace.js';
import { neutralize } from '../terminal/neutralize.js';
import type { Output } from '../terminal/output.js';
import type { Progress } from '../terminal/progress.js';
import { serversTable, type TableRow } from '../terminal/servers-table.js';
import { table } from '../terminal/table.js';

export interface ServerCommandRunOptions {
  json: boolean;
  timeoutMs: number;
  /** `--max-message-bytes`: the largest message a transport accepts. */
  maxMessageBytes?: number;
  verbose: boolean;
  /** Live progress while connecting (a terminal, not `--json`). */
  progress?: Progress;
  handlers?: ManagerHandlers | ((server: string) => ManagerHandlers | undefined);
  trace?: TraceFile;
}

/** Connects to the selected servers through one `McpManager`, runs one command, closes it. */
export class ServerCommandRun {
  constructor(
    private readonly out: Output,
    private readonly options: ServerCommandRunOptions,
    private readonly resolved: LoadResult,
    private readonly ctx: CliContext,
    private readonly shutdown: Shutdown,
  ) {}

  /** Cancels in-flight requests on a signal. */
  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Per-request options: the signal and `--timeout`. */
  get call(): { signal: AbortSignal; timeoutMs: number } {
    return { signal: this.shutdown.signal, timeoutMs: this.options.timeoutMs };
  }

  /**
   * Says on stderr why each server that is not enabled is not started (`quiet`: the
   * caller shows it itself), then connects the enabled ones in the manager's batches.
   */
  private async connect(
    names: readonly string[],
    lists: readonly ListKind[],
    quiet = false,
    /** The command's output has a row for each (`servers`): the live progress leaves them out. */
    inTable = false,
  ): Promise<{ manager: McpManager; states: ServerState[]; notStarted: ResolvedServer[] }> {
    const servers = this.resolved.servers.filter((s) => names.includes(s.name));
    const notStarted = servers.filter((s) => s.status !== 'enabled');
    // Said once: by the live progress when it is drawn (its last frame stays), else here.
    if (!quiet && !this.options.progress)
      for (const s of notStarted) this.out.stderr(`mcpkit: ${notStartedHint(s)}\n`);
    const forwarders = new Map<string, LineForwarder>();
    const manager = openManager(
      servers.filter((s) => s.status === 'enabled'),
      this.ctx,
      {
        timeoutMs: this.options.timeoutMs,
        ...(this.options.maxMessageBytes !== undefined
          ? { maxMessageBytes: this.options.maxMessageBytes }
          : {}),
        shutdown: this.shutdown,
        // Only the lists the command shows: no prompts/list or resources/list for "tools".
        lists,
        ...(this.options.handlers ? { handlers: this.options.handlers } : {}),
        ...(this.options.trace ? { trace: this.options.trace } : {}),
        ...(this.options.verbose
          ? {
              onstderr: (name: string, text: string) => {
                let forward = forwarders.get(name);
                if (!forward) {
                  forward = new LineForwarder(`[${name}] `, this.out.serverStderr);
                  forwarders.set(name, forward);
                }
                forward.push(text);
              },
              onwarning: (name: string, error: Error) =>
                this.out.stderr(`[${name || 'mcpkit'}] warning: ${errorText(error)}\n`),
            }
          : {}),
      },
    );
    // On a terminal, why is said once: in the table when the command has one, else here.
    const stopProgress = this.options.progress?.watch(
      manager,
      quiet || inTable ? [] : notStarted,
      this.shutdown.signal,
    );
    try {
      await manager.connectAll({ signal: this.shutdown.signal });
    } catch (error) {
      await manager.close();
      throw error;
    } finally {
      stopProgress?.();
    }
    this.shutdown.signal.throwIfAborted();
    return { manager, states: [...manager.snapshot().servers], notStarted };
  }

  private selected(filter: string[] | undefined): string[] {
    const all = this.resolved.servers.map((s) => s.name);
    if (!filter || filter.length === 0) return all;
    for (const name of filter) if (!all.includes(name)) throw noServerSync(name, all);
    return filter;
  }

  async servers(filter: string[] | undefined): Promise<number> {
    const names = this.selected(filter);
    // Why a server is not started: on its row (and in --json); on stderr as well when no
    // live progress is drawn (a pipe: stderr is the log), never a third time in the progress.
    const { manager, states, notStarted } = await this.connect(names, ['tools'], false, true);
    try {
      // The states as they are now: a list fetched since the connect is in them.
      const now = states.map((s) => manager.state(s.name) ?? s);
      // The server's own tools, app-only ones included (a host's model sees fewer).
      const toolCounts = new Map<string, number>();
      await Promise.all(
        now
          .filter((s) => s.state === 'connected')
          .map(async (s) => {
            const list = await manager
              .serverTools(s.name, { signal: this.signal })
              .catch(() => undefined);
            if (list) toolCounts.set(s.name, list.length);
          }),
      );
      const rows: TableRow[] = [
        ...now.map((state) => {
          const entry = this.resolved.servers.find((s) => s.name === state.name)!;
          return { entry, state, tools: toolCounts.get(state.name) };
        }),
        ...notStarted.map((entry) => ({ entry })),
      ].sort((a, b) => a.entry.name.localeCompare(b.entry.name));
      const rendered = serversTable(rows);
      // A row's reason and next step are the CLI's words and may quote the configured URL
      // (an HTTP error): its credentials are hidden by position. Server names and versions
      // hold no URL to redact.
      const redact = this.out.redact;
      if (this.options.json)
        this.out.json({
          servers: rendered.json.map((r) => ({
            ...r,
            ...(r.error !== undefined ? { error: redact(r.error) } : {}),
            ...(r.reason !== undefined ? { reason: redact(r.reason) } : {}),
            ...(r.next !== undefined ? { next: redact(r.next) } : {}),
          })),
        });
      else if (rows.length === 0) this.out.stdout(nothingConfiguredText(this.resolved));
      else this.out.stdout(redact(rendered.text));
      // A degraded server (connected, a list failed) needs attention as much as a failed one.
      return now.some((s) => s.state !== 'connected' || s.degraded) ? 1 : 0;
    } finally {
      await manager.close();
    }
  }

  /** Connects one server and hands its state and host tools to `show`. */
  async inspect(
    server: string,
    show: (state: ServerState, tools: HostTool[]) => Promise<number>,
  ): Promise<number> {
    const { manager, states } = await this.connect([server], ['tools'], true);
    try {
      const tools =
        states[0]!.state === 'connected'
          ? (await manager.tools({ signal: this.signal })).filter(
              (t) => t.server === server && !t.pseudo,
            )
          : [];
      // The state as it is now: a list fetched since the connect is in it.
      return await show(manager.state(server) ?? states[0]!, tools);
    } finally {
      await manager.close();
    }
  }

  async list<T>(
    what: string,
    filter: string[] | undefined,
    fetch: (client: McpClient, manager: McpManager, server: string) => Promise<T[]>,
    row: (item: T) => [string, string],
    /** The items' lines, when not a table of `row`s. */
    render?: (items: T[]) => string,
  ): Promise<number> {
    // The manager fetches only the tools ("tools" shows them from its list, with their host
    // names); the other commands list what they show themselves.
    const { manager, states, notStarted } = await this.connect(
      this.selected(filter),
      what === 'tools' ? ['tools'] : [],
    );
    const errors: Array<{ server: string; error: string }> = [];
    const warnings: string[] = [];
    const results: Array<{ name: string; items: T[] }> = [];
    try {
      await Promise.all(
        states.map(async (state) => {
          if (state.state !== 'connected') {
            errors.push({ server: state.name, error: failureLine(state) });
            return;
          }
          try {
            results.push({
              name: state.name,
              items: await fetch(state.client, manager, state.name),
            });
          } catch (error) {
            errors.push({ server: state.name, error: listError(manager, state.name, error) });
          }
        }),
      );
      if (what === 'tools')
        for (const state of states) {
          const now = manager.state(state.name);
          if (now?.state === 'connected')
            for (const line of toolIssueLines(now)) warnings.push(line);
        }
    } finally {
      await manager.close();
    }
    results.sort((a, b) => a.name.localeCompare(b.name));
    errors.sort((a, b) => a.server.localeCompare(b.server));
    if (this.options.json) {
      // The items are the servers' data, as sent; the errors are the CLI's words.
      this.out.json({
        servers: results.map((r) => ({ name: r.name, [what]: r.items })),
        errors: errors.map((e) => ({ ...e, error: this.out.redact(e.error) })),
      });
    } else {
      for (const r of results) {
        this.out.stdout(`${neutralize(r.name)} (${counted(r.items.length, what)})\n`);
        if (r.items.length > 0)
          this.out.stdout(`${render ? render(r.items) : table(r.items.map(row))}\n`);
      }
    }
    for (const w of warnings) this.out.stderr(`mcpkit: warning: ${w}\n`);
    for (const e of errors) this.out.stderr(`mcpkit: ${e.error}\n`);
    // A server named with -s that the gate does not start was not listed: a failure too.
    const namedNotStarted = (filter?.length ?? 0) > 0 && notStarted.length > 0;
    return errors.length > 0 || namedNotStarted ? 1 : 0;
  }

  async one(
    server: string,
    /** The lists the action reads from the manager. */
    lists: readonly ListKind[],
    action: (
      client: McpClient,
      manager: McpManager,
    ) => Promise<{ output: unknown; text: string; failed: boolean }>,
  ): Promise<number> {
    const entry: ResolvedServer | undefined = this.resolved.servers.find((s) => s.name === server);
    if (!entry)
      throw noServerSync(
        server,
        this.resolved.servers.map((s) => s.name),
      );
    if (entry.status !== 'enabled') {
      this.out.stderr(`mcpkit: ${notStartedHint(entry)}\n`);
      return 1;
    }
    const { manager, states } = await this.connect([server], lists, true);
    try {
      const state = states[0]!;
      if (state.state !== 'connected') {
        this.out.stderr(`mcpkit: ${failureLine(state)}\n`);
        return 1;
      }
      const { output, text, failed } = await action(state.client, manager);
      if (this.options.json) this.out.json(output);
      else this.out.result(`${text}\n`);
      return failed ? 1 : 0;
    } catch (error) {
      // A usage error (arguments that do not fit the tool) is the command's: exit 2.
      if (this.shutdown.signal.aborted || error instanceof UsageError) throw error;
      this.out.stderr(`mcpkit: ${serverError(server, error as Error)}\n`);
      return 1;
    } finally {
      await manager.close();
    }
  }
}

/** `key=value` words as strings (a prompt's arguments are strings), split at the first `=`. */
export function stringPairs(words: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    out[word.slice(0, at)] = word.slice(at + 1);
  }
  return out;
}

/** `1 tool`, `2 tools` (`what` is the plural). */
export function counted(n: number, what: string): string {
  return `${n} ${n === 1 ? what.replace(/s$/, '') : what}`;
}

/** A list read that failed: when it is the failure the server's state records, with its next step. */
function listError(manager: McpManager, server: string, error: unknown): string {
  const state = manager.state(server);
  const failure =
    state?.state === 'connected' ? state.degraded?.find((f) => f.error === error) : undefined;
  if (!failure) return serverError(server, error as Error);
  const words = listFailure(server, failure);
  return `server "${server}": ${words.reason}; ${words.next}`;
}

/**
 * A request's failure: the server's name in front, the CLI's advice from the error's facts.
 * A call that found its server failed is worded as the failed state is (`failureLine`).
 */
export function serverError(server: string, error: Error): string {
  const failed = failedStateOf(server, error);
  if (failed) return failureLine(failed);
  const text = once(errorText(error), server);
  if (text.includes(`"${server}"`)) return text;
  return `server "${server}": ${text}`;
}

/**
 * A server's stderr, a line at a time with its name in front: a chunk may end mid-line, and
 * the prefix belongs at the start of each line.
 */
class LineForwarder {
  private partial = '';

  constructor(
    private readonly prefix: string,
    private readonly write: (text: string) => void,
  ) {}

  push(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    // A line with no end in sight is still shown, in pieces, rather than held forever.
    if (this.partial.length > 64 * 1024) {
      lines.push(this.partial);
      this.partial = '';
    }
    if (lines.length > 0) this.write(lines.map((l) => `${this.prefix}${l}\n`).join(''));
  }
}

/** `no server named "everythin" — did you mean "everything"?`, as a usage error. */
export function noServerSync(name: string, names: readonly string[]): UsageError {
  return new UsageError(
    `no server named "${name}"${didYouMean(name, names)}; "mcpkit list" shows the configured servers`,
  );
}

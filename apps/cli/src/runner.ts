import type { McpClient } from '@mcpkit/client';
import type { LoadResult, ResolvedServer } from '@mcpkit/config';
import { UsageError } from './config-commands.js';
import { type Connected, connectServers } from './connect.js';
import { table } from './format.js';
import type { Output } from './output.js';
import { type CliContext, notStartedHint } from './servers.js';
import type { Shutdown } from './signals.js';
import { neutralize } from './terminal.js';

export interface RunnerOptions {
  json: boolean;
  timeoutMs: number;
  verbose: boolean;
}

/** Connects to the selected servers, runs one command against them, closes them. */
export class Runner {
  constructor(
    private readonly out: Output,
    private readonly options: RunnerOptions,
    private readonly resolved: LoadResult,
    private readonly ctx: CliContext,
    private readonly shutdown: Shutdown,
  ) {}

  /** Cancels in-flight requests on a signal. */
  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  /** Says on stderr why each server that is not enabled is not started. */
  private async connect(names: readonly string[]) {
    const servers = this.resolved.servers.filter((s) => names.includes(s.name));
    for (const s of servers)
      if (s.status !== 'enabled') this.out.stderr(`mcpkit: ${notStartedHint(s)}\n`);
    const forwarders = new Map<string, LineForwarder>();
    return connectServers(
      servers.filter((s) => s.status === 'enabled'),
      this.ctx,
      {
        timeoutMs: this.options.timeoutMs,
        shutdown: this.shutdown,
        ...(this.options.verbose
          ? {
              stderr: (name: string, text: string) => {
                let forward = forwarders.get(name);
                if (!forward) {
                  forward = new LineForwarder(`[${name}] `, this.out.stderr);
                  forwarders.set(name, forward);
                }
                forward.push(text);
              },
            }
          : {}),
      },
    );
  }

  private selected(filter: string[] | undefined): string[] {
    const all = this.resolved.servers.map((s) => s.name);
    if (!filter || filter.length === 0) return all;
    for (const name of filter) {
      if (!all.includes(name))
        throw new UsageError(
          `no server named "${name}"; "mcpkit list" shows the configured servers`,
        );
    }
    return filter;
  }

  async servers(filter: string[] | undefined): Promise<number> {
    const names = this.selected(filter);
    // Why a server is not started goes to stderr (as for every command) and in the table.
    const { connected, failed } = await this.connect(names);
    try {
      const notStarted = this.resolved.servers.filter(
        (s) => names.includes(s.name) && s.status !== 'enabled',
      );
      const rows = [
        ...connected.map((c) => ({
          name: c.name,
          status: 'connected',
          protocolVersion: c.client.protocolVersion,
          era: c.client.era,
          server: c.client.serverInfo,
        })),
        ...failed.map((f) => ({ name: f.name, status: 'failed', error: f.error.message })),
        ...notStarted.map((s) => ({
          name: s.name,
          status: s.status,
          reason: notStartedHint(s),
          // A project entry waiting for approval that hides the user's own entry.
          ...(s.replaces?.length ? { replaces: s.replaces } : {}),
        })),
      ].sort((a, b) => a.name.localeCompare(b.name));
      if (this.options.json) this.out.json({ servers: rows });
      else {
        this.out.stdout(
          `${table(
            rows.map((r) => [
              r.name,
              'error' in r
                ? `failed: ${r.error}`
                : 'reason' in r
                  ? `not started: ${r.reason}`
                  : `connected  ${r.server?.name ?? '?'} ${r.server?.version ?? ''}  protocol ${r.protocolVersion}`,
            ]),
            '',
            // Whole first lines: a reason cut short loses its next step.
            Number.POSITIVE_INFINITY,
          )}\n`,
        );
      }
      return failed.length > 0 ? 1 : 0;
    } finally {
      await closeAll(connected);
    }
  }

  async list<T>(
    what: string,
    filter: string[] | undefined,
    fetch: (client: McpClient) => Promise<T[]>,
    row: (item: T) => [string, string],
  ): Promise<number> {
    const { connected, failed } = await this.connect(this.selected(filter));
    const errors = failed.map((f) => ({ server: f.name, error: f.error.message }));
    const results: Array<{ name: string; items: T[] }> = [];
    try {
      await Promise.all(
        connected.map(async (c) => {
          try {
            results.push({ name: c.name, items: await fetch(c.client) });
          } catch (error) {
            errors.push({ server: c.name, error: (error as Error).message });
          }
        }),
      );
    } finally {
      await closeAll(connected);
    }
    results.sort((a, b) => a.name.localeCompare(b.name));
    if (this.options.json) {
      this.out.json({ servers: results.map((r) => ({ name: r.name, [what]: r.items })), errors });
    } else {
      for (const r of results) {
        this.out.stdout(`${neutralize(r.name)} (${r.items.length} ${what})\n`);
        if (r.items.length > 0) this.out.stdout(`${table(r.items.map(row))}\n`);
      }
    }
    for (const e of errors) this.out.stderr(`mcpkit: ${e.error}\n`);
    return errors.length > 0 ? 1 : 0;
  }

  async one(
    server: string,
    action: (client: McpClient) => Promise<{ output: unknown; text: string; failed: boolean }>,
  ): Promise<number> {
    const entry: ResolvedServer | undefined = this.resolved.servers.find((s) => s.name === server);
    if (!entry)
      throw new UsageError(
        `no server named "${server}"; "mcpkit list" shows the configured servers`,
      );
    if (entry.status !== 'enabled') {
      this.out.stderr(`mcpkit: ${notStartedHint(entry)}\n`);
      return 1;
    }
    const { connected, failed } = await this.connect([server]);
    if (failed[0]) {
      this.out.stderr(`mcpkit: ${failed[0].error.message}\n`);
      return 1;
    }
    try {
      const { output, text, failed: isError } = await action(connected[0]!.client);
      if (this.options.json) this.out.json(output);
      else this.out.result(`${text}\n`);
      return isError ? 1 : 0;
    } catch (error) {
      this.out.stderr(`mcpkit: ${(error as Error).message}\n`);
      return 1;
    } finally {
      await closeAll(connected);
    }
  }
}

async function closeAll(connected: Connected[]): Promise<void> {
  await Promise.all(connected.map((c) => c.close()));
}

/**
 * A server's stderr, a line at a time with its name in front: a chunk may end mid-line,
 * and a secret split across two chunks must still be seen whole by the scrubber.
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

import type { ResolvedServer } from '@mcpkit/config';
import type { ServerState } from '@mcpkit/manager';
import { listFailure, stderrBlock, summarize, toolIssueLines } from '../core/advice.js';
import { notStartedHint } from '../core/server-selection.js';
import { neutralize } from './neutralize.js';

export interface TableRow {
  entry: ResolvedServer;
  /** Absent for a server the config did not enable (it was never given to the manager). */
  state?: ServerState;
  tools?: number | undefined;
}

export interface ServersJsonRow {
  name: string;
  /**
   * `connected`, `degraded` (connected, but a list failed), `failed`, `needs-auth`,
   * `reconnecting`, `starting`, or the config status.
   */
  status: string;
  transport: string;
  scope: string;
  protocolVersion?: string;
  era?: 'legacy' | 'modern';
  server?: { name: string; version: string } | undefined;
  /** Absent when its tools/list failed. */
  tools?: number;
  connectMs?: number;
  /** The lists that failed (a `degraded` server): which, why, the next step. */
  degraded?: Array<{
    list: string;
    error: string;
    code?: string;
    rpcCode?: number;
    next: string;
  }>;
  /** Tools of its list that were repaired or left out. */
  toolIssues?: Array<{ tool: string; action: 'repaired' | 'dropped'; reason: string }>;
  error?: string;
  reason?: string;
  next?: string;
  /** The server's last stderr lines before a connect timeout. */
  stderr?: string[];
  replaces?: ResolvedServer['replaces'];
}

function transportOf(entry: ResolvedServer): string {
  return entry.config.type ?? 'stdio';
}

function jsonRow({ entry, state, tools }: TableRow): ServersJsonRow {
  const base = { name: entry.name, transport: transportOf(entry), scope: entry.scope };
  if (!state)
    return {
      ...base,
      status: entry.status,
      reason: notStartedHint(entry),
      // A project entry waiting for approval that hides the user's own entry.
      ...(entry.replaces?.length ? { replaces: entry.replaces } : {}),
    };
  if (state.state === 'connected') {
    const degraded = state.degraded ?? [];
    const toolsFailed = degraded.some((f) => f.list === 'tools');
    return {
      ...base,
      status: degraded.length > 0 ? 'degraded' : 'connected',
      protocolVersion: state.protocolVersion,
      era: state.era,
      server: state.serverInfo
        ? { name: state.serverInfo.name, version: state.serverInfo.version }
        : undefined,
      ...(toolsFailed ? {} : { tools: tools ?? 0 }),
      connectMs: state.connectMs,
      ...(degraded.length > 0
        ? {
            degraded: degraded.map((f) => {
              const words = listFailure(state.name, f);
              return {
                list: f.list,
                error: words.reason,
                ...(f.code !== undefined ? { code: f.code } : {}),
                ...(f.rpcCode !== undefined ? { rpcCode: f.rpcCode } : {}),
                next: words.next,
              };
            }),
          }
        : {}),
      ...(state.toolIssues?.length ? { toolIssues: state.toolIssues.map((i) => ({ ...i })) } : {}),
    };
  }
  const s = summarize(state);
  return {
    ...base,
    status: s.state,
    ...(state.state === 'failed' || state.state === 'needs-auth'
      ? { error: s.reason }
      : { reason: s.reason }),
    ...(s.next ? { next: s.next } : {}),
    ...(s.stderr ? { stderr: s.stderr } : {}),
  };
}

/** Pads each column to its widest cell; the last column is never cut (it holds next steps). */
function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      if (i < row.length - 1) widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows.map((row) =>
    row
      .map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * `mcpkit servers`: one row per server — state, transport, protocol version and era, tool
 * count, connect time, server name and version — and for a server that is not connected,
 * its state and reason on its row and the next step under it. A server the config did not enable has no transport to show: its row says why it
 * is not started, with what to run.
 */
export function serversTable(rows: readonly TableRow[]): { text: string; json: ServersJsonRow[] } {
  const json = rows.map(jsonRow);
  const grid: string[][] = [
    ['NAME', 'STATE', 'TRANSPORT', 'PROTOCOL', 'TOOLS', 'CONNECT', 'SERVER'],
  ];
  const after = new Map<number, string[]>();
  const spanning = new Map<number, { name: string; text: string }>();
  json.forEach((r, i) => {
    const name = neutralize(r.name);
    if (r.status === 'connected' || r.status === 'degraded') {
      // Connected, but a list failed: the row says so, each failure and its next step under it.
      const under: string[] = [];
      for (const f of r.degraded ?? [])
        under.push(
          `    ${neutralize(f.error.replace(/\s*\n\s*/g, ' '))}`,
          `    next: ${neutralize(f.next)}`,
        );
      const state = rows[i]!.state;
      if (state?.state === 'connected')
        for (const line of toolIssueLines(state)) under.push(`    warning: ${neutralize(line)}`);
      if (under.length > 0) after.set(grid.length, under);
      grid.push([
        name,
        r.status,
        r.transport,
        // The era is in `get` (in words) and in --json: "(legacy)" on every row read as a warning.
        r.protocolVersion ?? '?',
        r.tools === undefined ? '?' : String(r.tools),
        `${r.connectMs} ms`,
        neutralize(r.server ? `${r.server.name} ${r.server.version}` : '?'),
      ]);
      return;
    }
    if (!rows[i]!.state) {
      // The first line of the reason is enough to act on; it always ends with the next step.
      spanning.set(grid.length, { name, text: `not started: ${neutralize(r.reason ?? '')}` });
      // Two cells: its name counts in the width of the NAME column.
      grid.push([name, '']);
      return;
    }
    // Not connected: no protocol, tools or time to show; the row says the state and why
    // (the transport is in --json), the next step goes under it.
    const reason = (r.error ?? r.reason ?? '').replace(/\s*\n\s*/g, ' ');
    spanning.set(grid.length, {
      name,
      text: `${r.status}${reason ? `: ${neutralize(reason)}` : ''}`,
    });
    const under = [
      ...(r.next ? [`    next: ${neutralize(r.next)}`] : []),
      ...stderrBlock((r.stderr ?? []).map((l) => neutralize(l))),
    ];
    if (under.length > 0) after.set(grid.length, under);
    grid.push([name, '']);
  });
  const laid = columns(grid);
  const nameWidth = Math.max(...grid.map((row) => row[0]!.length));
  const out: string[] = [];
  laid.forEach((line, i) => {
    const span = spanning.get(i);
    if (span !== undefined) out.push(`${span.name.padEnd(nameWidth)}  ${span.text}`);
    else out.push(line);
    for (const extra of after.get(i) ?? []) out.push(extra);
  });
  return { text: `${out.join('\n')}\n`, json };
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  type ApprovalNeeded,
  formatDiagnostic,
  type LoadResult,
  loadConfig,
  type ResolvedServer,
  type ServerNotEnabledError,
  type ServerOrigin,
} from '@mcpkit/config';
import { skipSelfReferences } from './self-reference.js';

export interface CliContext {
  cwd: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

export interface ServerSelection {
  config: string[] | undefined;
  strict: boolean;
}

/**
 * Resolves the servers the way the library does: every scope, `--config` as the dynamic
 * scope. An entry that runs this CLI's own gateway (`mcpkit serve`) is marked `skipped`.
 */
export async function resolveServers(
  ctx: CliContext,
  selection: ServerSelection,
): Promise<LoadResult> {
  const result = await loadConfig({
    cwd: ctx.cwd,
    home: ctx.home,
    env: ctx.env,
    strict: selection.strict,
    dynamic: (selection.config ?? []).map((value) =>
      value.trimStart().startsWith('{') ? { json: value } : { file: path.resolve(ctx.cwd, value) },
    ),
  });
  return skipSelfReferences(result, (server) => workingDirectory(server, ctx));
}

/** Stdio servers from a file run in that file's folder; the others in the working directory. */
export function workingDirectory(server: ResolvedServer, ctx: CliContext): string {
  if (
    (server.scope === 'project' || server.scope === 'dynamic') &&
    server.source.endsWith('.json') &&
    existsSync(server.source)
  ) {
    return path.dirname(server.source);
  }
  return ctx.cwd;
}

/** One line per problem, for stderr. */
export function problems(result: LoadResult): string[] {
  return [
    ...result.errors.map((d) => `error: ${formatDiagnostic(d)}`),
    ...result.warnings.map((d) => `warning: ${formatDiagnostic(d)}`),
  ];
}

/** The facts of the gate's refusal that the CLI words (a resolved entry, or the gate's error). */
export interface NotStartedFacts {
  name: string;
  status: string;
  reason: string;
  source: string;
  replaces?: readonly ServerOrigin[] | undefined;
  approvalNeeded?: ApprovalNeeded | undefined;
  /** The entry's scope, when known: a --config entry is not one `mcpkit enable` writes. */
  scope?: string | undefined;
}

/** The gate's refusal (`ServerNotEnabledError`) as the facts `notStartedHint` words. */
export function refusalFacts(error: ServerNotEnabledError): NotStartedFacts {
  return {
    name: error.server,
    status: error.status,
    reason: error.reason,
    source: error.source,
    replaces: error.replaces,
    approvalNeeded: error.approvalNeeded,
  };
}

/**
 * Why a configured server will not be started, with what to do about it: the one place
 * the CLI words the gate (status, approval state, policy reason), for every command.
 */
export function notStartedHint(server: NotStartedFacts): string {
  const approve = `run "mcpkit approve ${server.name}"`;
  switch (server.status) {
    case 'pending-approval': {
      const mine = server.replaces?.[0];
      if (mine)
        return `the project entry "${server.name}" (${server.source}, pending approval) replaces your ${mine.scope} entry in ${mine.source}, so neither runs: ${approve} or rename one of them`;
      if (server.approvalNeeded === 'changed' || server.approvalNeeded === 'name-only')
        return `server "${server.name}": ${server.reason}: check ${server.source} and ${approve}`;
      return `server "${server.name}" (${server.source}) waits for approval: ${approve}`;
    }
    case 'rejected':
      return `server "${server.name}" was rejected: ${approve} to allow it`;
    case 'blocked':
      return `server "${server.name}" is ${server.reason}; "mcpkit list" shows the policy that blocks it`;
    case 'disabled':
      return server.scope === 'dynamic'
        ? `server "${server.name}" is disabled in ${server.source}: remove its "disabled": true there`
        : `server "${server.name}" is disabled in ${server.source}: run "mcpkit enable ${server.name}"`;
    case 'skipped':
      return `server "${server.name}" is skipped: ${server.reason}`;
    default:
      return `server "${server.name}" is ${server.status}`;
  }
}

/**
 * Which scopes and files were read when none gave a server: one `[scope, file, what]` per
 * file, the local scope's state file first (its entries are per folder).
 */
export function scopesRead(result: LoadResult): Array<[string, string, string]> {
  const rows: Array<[string, string, string]> = [
    ['local', result.localStateFile, `nothing for ${result.project}`],
  ];
  const order = ['user', 'project', 'managed', 'dynamic'];
  const files = [...result.files].sort((a, b) => order.indexOf(a.scope) - order.indexOf(b.scope));
  for (const f of files)
    rows.push([
      f.scope === 'dynamic' ? '--config' : f.scope,
      f.file,
      f.found ? 'no servers' : 'not found',
    ]);
  return rows;
}

/** "No MCP servers configured" with where the CLI looked: for `list` and `servers` (several lines). */
export function nothingConfiguredText(result: LoadResult): string {
  const rows = scopesRead(result);
  const width = Math.max(...rows.map(([scope]) => scope.length));
  return (
    `no MCP servers configured for ${result.project}; read:\n` +
    rows.map(([scope, file, what]) => `  ${scope.padEnd(width)}  ${file} (${what})\n`).join('') +
    `add one with "mcpkit add <name> <command|url>" (this folder only), or with --scope user (every folder)\n`
  );
}

/** The same in one line (for `serve`, whose stdout is the MCP stream). */
export function nothingConfigured(
  result: LoadResult,
  _ctx: CliContext,
  anyNotStarted: boolean,
): string {
  if (anyNotStarted)
    return 'no server is enabled (each is not started, as said above): the gateway serves no tools';
  const read = scopesRead(result)
    .map(([scope, file, what]) => `${scope} ${file} (${what})`)
    .join(', ');
  return `no MCP servers configured for ${result.project} (read: ${read}): the gateway serves no tools; add one with "mcpkit add"`;
}

import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic, type LoadResult, loadConfig, type ResolvedServer } from '@mcpkit/config';
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

/** Why a configured server will not be started, with what to do about it. */
export function notStartedHint(server: ResolvedServer): string {
  switch (server.status) {
    case 'pending-approval': {
      const mine = server.replaces?.[0];
      if (mine)
        return `the project entry "${server.name}" (${server.source}, pending approval) replaces your ${mine.scope} entry in ${mine.source}, so neither runs: run "mcpkit approve ${server.name}" or rename one of them`;
      // A reason that already says what to run (a changed entry, an old approval) is enough.
      if (server.reason.includes('mcpkit approve'))
        return `server "${server.name}": ${server.reason}`;
      return `server "${server.name}" (${server.source}) waits for approval: run "mcpkit approve ${server.name}"`;
    }
    case 'rejected':
      return `server "${server.name}" was rejected: run "mcpkit approve ${server.name}" to allow it`;
    case 'blocked':
      return `server "${server.name}" is ${server.reason}`;
    case 'disabled':
      return `server "${server.name}" is disabled in ${server.source}`;
    case 'skipped':
      return `server "${server.name}" is skipped: ${server.reason}`;
    default:
      return '';
  }
}

import path from 'node:path';
import {
  type ApprovalRecord,
  addServer,
  approve,
  approveAll,
  ConfigWriteError,
  type Diagnostic,
  IMPORT_LOCATIONS,
  IMPORT_SOURCES,
  type ImportSource,
  importServers,
  nodeFs,
  parseJsoncText,
  type ResolvedServer,
  readConfigFile,
  redactServerConfig,
  redactUrl,
  reject,
  removeServer,
  resetApprovals,
  type ServerConfig,
  scopeTarget,
  updateApprovals,
  type WritableScope,
} from '@mcpkit/config';
import { type Io, UsageError } from '../core/io.js';
import { runsThisGateway, SELF_REASON } from '../core/self-reference.js';
import {
  type CliContext,
  nothingConfiguredText,
  problems,
  resolveServers,
  type ServerSelection,
} from '../core/server-selection.js';
import { neutralize } from '../terminal/neutralize.js';
import { redactUrls } from '../terminal/redact-output.js';

const SCOPES: WritableScope[] = ['local', 'project', 'user'];

export function parseScope(value: string | undefined): WritableScope {
  const scope = (value ?? 'local') as WritableScope;
  if (!SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${SCOPES.join(', ')}`);
  return scope;
}

export function writeOptions(ctx: CliContext) {
  return { cwd: ctx.cwd, home: ctx.home, env: ctx.env };
}

/**
 * Where a write went, for whom: the scope, the folders it counts for and the file
 * (`[local: …]` in words). `chosen`: the user gave --scope; without it the local default
 * says how to reach every folder.
 */
export function writtenTo(
  scope: WritableScope,
  file: string,
  ctx: CliContext,
  chosen = true,
): string {
  switch (scope) {
    case 'local':
      return `the local scope (this folder only: ${ctx.cwd}${chosen ? '' : '; --scope user for every folder'}) in ${file}`;
    case 'user':
      return `the user scope (every folder) in ${file}`;
    case 'project':
      return `the project scope (${path.dirname(file)} and its subfolders, for everyone with the folder) in ${file}`;
  }
}

/** The scopes whose file has an entry named `name` (what `remove` in another scope would find). */
async function scopesHolding(
  name: string,
  ctx: CliContext,
): Promise<Array<{ scope: WritableScope; file: string }>> {
  const found: Array<{ scope: WritableScope; file: string }> = [];
  for (const scope of SCOPES) {
    const { file, at } = scopeTarget(scope, writeOptions(ctx));
    const text = await readConfigFile(file).catch(() => undefined);
    if (text === undefined) continue;
    let servers: unknown = parseJsoncText(text, file).value;
    for (const key of at) servers = (servers as Record<string, unknown> | undefined)?.[key];
    if (typeof servers === 'object' && servers !== null && Object.hasOwn(servers, name))
      found.push({ scope, file });
  }
  return found;
}

/** A refused write in the CLI's words: a taken name says how to free it, a missing one where it is. */
async function writeRefused(error: unknown, ctx: CliContext): Promise<unknown> {
  if (!ConfigWriteError.isInstance(error)) return error;
  const conflict = (error as ConfigWriteError).conflict;
  if (!conflict) return error;
  const { scope, server, file } = conflict;
  if (conflict.reason === 'exists')
    return new Error(
      `a server named "${server}" already exists in the ${scope} scope (${file}); remove it first with "mcpkit remove --scope ${scope} ${server}", or give the new one another name`,
      { cause: error },
    );
  const elsewhere = (await scopesHolding(server, ctx)).filter((s) => s.scope !== scope);
  const there = elsewhere.map(
    (s) =>
      `it is in the ${s.scope} scope (${s.file}): run "mcpkit remove --scope ${s.scope} ${server}"`,
  );
  return new Error(
    `no server named "${server}" in the ${scope} scope (${file})${there.length ? `; ${there.join('; ')}` : '; "mcpkit list" shows where each server comes from'}`,
    { cause: error },
  );
}

export interface ListOptions {
  json: boolean;
  /** Print header and env values, URL passwords and query values as they are. */
  showSecrets?: boolean;
}

/**
 * `mcpkit list`: every server, where it comes from, and whether it will start (and why not).
 * Secrets are hidden unless `showSecrets` is set. (A bare boolean is the old `json` argument.)
 */
export async function listCommand(
  io: Io,
  ctx: CliContext,
  selection: ServerSelection,
  options: ListOptions | boolean,
): Promise<number> {
  const { json, showSecrets = false } = typeof options === 'boolean' ? { json: options } : options;
  const result = await resolveServers(ctx, selection);
  // Secrets are hidden by position: in each entry (`redactServerConfig`) and in the URLs
  // the messages quote (`io.stderr` of the CLI's Output); nothing is searched for values.
  const out = io.stdout;
  const err = io.stderr;
  const said = (d: Diagnostic): Diagnostic =>
    showSecrets ? d : { ...d, message: redactUrls(d.message) };
  const shown = <T extends { config: ServerConfig; approval?: ApprovalRecord }>(s: T): T => {
    if (showSecrets) return s;
    const approval = s.approval?.url
      ? { approval: { ...s.approval, url: redactUrl(s.approval.url) } }
      : {};
    return { ...s, config: redactServerConfig(s.config), ...approval };
  };
  if (json) {
    out(
      `${JSON.stringify(
        {
          servers: result.servers.map(shown),
          dropped: result.dropped.map(shown),
          errors: result.errors.map(said),
          warnings: result.warnings.map(said),
        },
        null,
        2,
      )}\n`,
    );
    return result.errors.length > 0 ? 1 : 0;
  }
  const rows: Array<[string, string, string, string]> = result.servers.map((s) => {
    const missing = s.missingVariables.length
      ? `; missing variables: ${s.missingVariables.join(', ')}`
      : '';
    const status = s.status === 'enabled' ? 'enabled' : s.reason;
    const reads =
      s.scope === 'project' && s.referencedVariables?.length
        ? `; reads ${(s.referencedVariables ?? []).map((v) => `\${${v}}`).join(', ')}`
        : '';
    const replaces = (s.replaces ?? [])
      .map((r) => `; replaces your ${r.scope} entry in ${r.source}`)
      .join('');
    return [s.name, s.scope, `${status}${missing}${reads}${replaces}`, s.source];
  });
  for (const d of result.dropped) {
    const why =
      d.because === 'overridden' &&
      d.by?.scope === 'project' &&
      (d.scope === 'user' || d.scope === 'plugin')
        ? `replaced by the project entry in ${d.by.source}`
        : d.because === 'overridden' || d.because === 'duplicate'
          ? `shadowed by "${d.by?.name}" (${d.by?.scope}, ${d.by?.source})${d.because === 'duplicate' ? ': same server' : ''}`
          : d.because === 'strict'
            ? 'ignored: --strict-config'
            : 'ignored: a managed config is in force';
    rows.push([d.name, d.scope, why, d.source]);
  }
  out(rows.length ? `${listTable(rows)}\n` : nothingConfiguredText(result));
  for (const line of problems(result)) err(`mcpkit: ${line}\n`);
  return result.errors.length > 0 ? 1 : 0;
}

/** `list`'s table: a header row, then NAME, SCOPE, STATUS and FILE (never cut) in columns. */
function listTable(rows: Array<[string, string, string, string]>): string {
  const all = [['NAME', 'SCOPE', 'STATUS', 'FILE'], ...rows].map((r) =>
    r.map((c) => neutralize(c)),
  );
  const widths = [0, 1, 2].map((i) => Math.max(...all.map((r) => r[i]!.length)));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function parsePairs(
  values: string[] | undefined,
  separator: string,
  what: string,
): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    if (at <= 0) throw new UsageError(`${what} "${value}" must look like NAME${separator}value`);
    out[value.slice(0, at).trim()] = value.slice(at + separator.length).trim();
  }
  return out;
}

export interface AddFlags {
  scope?: string;
  transport?: string;
  env?: string[];
  header?: string[];
}

/** `mcpkit add [--transport t] [--scope s] [-e K=V] [-H "N: v"] <name> <command|url> [args...]` */
export async function addCommand(
  io: Io,
  ctx: CliContext,
  rest: string[],
  flags: AddFlags,
): Promise<number> {
  const [name, target, ...args] = rest;
  if (!name || !target)
    throw new UsageError(
      'usage: mcpkit add [--transport stdio|http|sse|ws] <name> <command|url> [args...]',
    );
  const transport = flags.transport ?? 'stdio';
  const env = parsePairs(flags.env, '=', '--env');
  const headers = parsePairs(flags.header, ':', '--header');
  const entry =
    transport === 'stdio'
      ? { command: target, ...(args.length ? { args } : {}), ...(env ? { env } : {}) }
      : { type: transport, url: target, ...(headers ? { headers } : {}) };
  const scope = parseScope(flags.scope);
  const file = await addServer(scope, name, entry, writeOptions(ctx)).catch(async (error) => {
    throw await writeRefused(error, ctx);
  });
  io.stdout(
    `added server "${name}" to ${writtenTo(scope, file, ctx, flags.scope !== undefined)}\n`,
  );
  return 0;
}

/** `mcpkit add-json <name> '<json>'` */
export async function addJsonCommand(
  io: Io,
  ctx: CliContext,
  rest: string[],
  scope: string | undefined,
): Promise<number> {
  const [name, json] = rest;
  if (!name || json === undefined || rest.length > 2)
    throw new UsageError("usage: mcpkit add-json <name> '<json>'");
  let entry: unknown;
  try {
    entry = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`the server must be JSON: ${(error as Error).message}`);
  }
  const chosen = parseScope(scope);
  const file = await addServer(chosen, name, entry, writeOptions(ctx)).catch(async (error) => {
    throw await writeRefused(error, ctx);
  });
  io.stdout(`added server "${name}" to ${writtenTo(chosen, file, ctx, scope !== undefined)}\n`);
  return 0;
}

/** `mcpkit remove <name> [--scope s]` */
export async function removeCommand(
  io: Io,
  ctx: CliContext,
  rest: string[],
  scope: string | undefined,
): Promise<number> {
  const [name] = rest;
  if (!name || rest.length > 1)
    throw new UsageError('usage: mcpkit remove <name> [--scope local|project|user]');
  const chosen = parseScope(scope);
  const file = await removeServer(chosen, name, writeOptions(ctx)).catch(async (error) => {
    throw await writeRefused(error, ctx);
  });
  io.stdout(`removed server "${name}" from ${writtenTo(chosen, file, ctx)}\n`);
  return 0;
}

/** `mcpkit approve <name...> | --all`, `mcpkit reject <name...>`, `mcpkit reset-project-choices` */
export async function approvalCommand(
  io: Io,
  ctx: CliContext,
  selection: ServerSelection,
  command: 'approve' | 'reject' | 'reset-project-choices',
  names: string[],
  all: boolean,
): Promise<number> {
  const result = await resolveServers(ctx, selection);
  const project = result.servers.filter((s) => s.scope === 'project');
  const projectServers = new Set(project.map((s) => s.name));
  for (const name of names) {
    if (!projectServers.has(name)) {
      throw new UsageError(
        `"${name}" is not a project server here (only servers from .mcp.json files need approval)`,
      );
    }
  }
  if (command !== 'reset-project-choices' && !all && names.length === 0) {
    throw new UsageError(
      `usage: mcpkit ${command} <name...>${command === 'approve' ? ' | --all' : ''}`,
    );
  }
  // `--all` approves the entries that exist now, each bound to its file and signature.
  const chosen = all ? project : project.filter((s) => names.includes(s.name));
  const change =
    command === 'reset-project-choices'
      ? resetApprovals
      : command === 'approve'
        ? (all ? approveAll : approve)(chosen)
        : reject(all ? chosen.map((s) => s.name) : names);
  if (command === 'approve') {
    // Said before recording, so the user sees what the approval covers.
    for (const s of chosen) {
      // The entry whole but for its credentials: the user sees the command they approve.
      io.stderr(
        `mcpkit: approving "${s.name}" (${s.source}): ${JSON.stringify(redactServerConfig(s.config))}\n`,
      );
      for (const line of approvalNotes(s)) io.stderr(`mcpkit: ${line}\n`);
    }
  }
  await updateApprovals(nodeFs, result.localStateFile, result.project, change);
  const what =
    command === 'reset-project-choices'
      ? 'project server choices reset: every project server waits for approval again'
      : all
        ? `${command === 'approve' ? 'approved' : 'rejected'} the project servers that exist now: ${chosen.map((s) => s.name).join(', ') || '(none)'}`
        : `${command === 'approve' ? 'approved' : 'rejected'}: ${names.join(', ')}`;
  io.stdout(`${what} (for ${result.project})\n`);
  return 0;
}

/** What a user should know about a project server before it runs. */
export function approvalNotes(s: ResolvedServer): string[] {
  const notes: string[] = [];
  if (s.referencedVariables?.length)
    notes.push(
      `"${s.name}" reads ${(s.referencedVariables ?? []).map((v) => `\${${v}}`).join(', ')}`,
    );
  for (const r of s.replaces ?? [])
    notes.push(
      `warning: the project entry "${s.name}" (${s.source}) replaces your ${r.scope} entry "${r.name}" in ${r.source}`,
    );
  return notes;
}

/** `mcpkit import --from <host> [file] [--scope s]` */
export async function importCommand(
  io: Io,
  ctx: CliContext,
  rest: string[],
  flags: { from?: string; scope?: string; dryRun?: boolean; showSecrets?: boolean },
): Promise<number> {
  const host = flags.from as ImportSource | undefined;
  if (!host || !IMPORT_SOURCES.includes(host)) {
    throw new UsageError(`--from must be one of ${IMPORT_SOURCES.join(', ')}`);
  }
  const location = IMPORT_LOCATIONS[host];
  const platform = process.platform as 'linux' | 'darwin' | 'win32';
  const file =
    rest[0] !== undefined
      ? path.resolve(ctx.cwd, rest[0])
      : location.project !== undefined && !location[platform]
        ? path.join(ctx.cwd, location.project)
        : location[platform] !== undefined
          ? path.join(ctx.home, location[platform]!)
          : undefined;
  if (!file) throw new UsageError(`give the ${host} config file to import`);
  // Read like any config file: a regular file only, with a size bound.
  let text: string | undefined;
  try {
    text = await readConfigFile(file);
  } catch (error) {
    io.stderr(`mcpkit: ${(error as Error).message}\n`);
    return 1;
  }
  if (text === undefined) {
    io.stderr(
      rest[0] !== undefined
        ? `mcpkit: ${file} does not exist\n`
        : `mcpkit: no ${host} config at ${file}; give the file to import as an argument\n`,
    );
    return 1;
  }
  const result = importServers(host, text, {
    project: ctx.cwd,
    workspaceFolder: ctx.cwd,
    home: ctx.home,
  });
  const scope = parseScope(flags.scope);
  let failed = 0;
  for (const [name, entry] of Object.entries(result.servers)) {
    if (flags.dryRun) {
      // The file's env and header values are secrets like any entry's: hidden unless asked.
      const shown = flags.showSecrets ? entry : redactServerConfig(entry as ServerConfig);
      io.stdout(`would add "${name}": ${JSON.stringify(shown)}\n`);
      continue;
    }
    try {
      const written = await addServer(scope, name, entry, writeOptions(ctx));
      io.stdout(
        `imported "${name}" into ${writtenTo(scope, written, ctx, flags.scope !== undefined)}\n`,
      );
    } catch (error) {
      failed++;
      io.stderr(
        `mcpkit: "${name}" not imported: ${((await writeRefused(error, ctx)) as Error).message}\n`,
      );
    }
  }
  for (const [name, entry] of Object.entries(result.servers))
    if (runsThisGateway({ config: entry as ServerConfig }, ctx.cwd))
      io.stderr(
        `mcpkit: warning: "${name}" is imported, but ${SELF_REASON}; every mcpkit command skips it${flags.dryRun ? '' : ` (remove it with "mcpkit remove --scope ${scope} ${name}")`}\n`,
      );
  for (const s of result.skipped) io.stderr(`mcpkit: skipped "${s.name}": ${s.reason}\n`);
  for (const n of result.notes)
    io.stderr(`mcpkit: note: ${n.name === '*' ? '' : `"${n.name}": `}${n.note}\n`);
  if (Object.keys(result.servers).length === 0) io.stdout(`no servers found in ${file}\n`);
  return failed > 0 || result.skipped.length > 0 ? 1 : 0;
}

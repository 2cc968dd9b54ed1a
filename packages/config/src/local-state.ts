import { isRecord } from '@mcpkit/jsonrpc/errors';
import { applyEdits, modify } from 'jsonc-parser';
import type { ProjectApprovals } from './approvals.js';
import type { Diagnostic } from './diagnostics.js';
import { type ConfigFs, readProblem } from './fs.js';
import { parseJsoncText } from './jsonc.js';
import type { ApprovalRecord } from './signature.js';
import { ConfigWriteError } from './writers.js';

/**
 * Private per-project state, kept in the user's config folder (never in the repository):
 * `{ "projects": { "<project folder>": { "mcpServers": {…}, "approvals": {…} } } }`.
 */
export interface ProjectState {
  mcpServers?: Record<string, unknown>;
  approvals?: ProjectApprovals;
}

/**
 * One project's state. A state file that cannot be read or parsed is a warning, never a
 * failure: approvals it would have held count as not given, so nothing starts by mistake.
 */
export async function loadProjectState(
  fs: ConfigFs,
  stateFile: string,
  project: string,
): Promise<{ state: ProjectState; warnings: Diagnostic[] }> {
  const warn = (message: string, at?: { line?: number; column?: number }) => ({
    state: {},
    warnings: [
      {
        severity: 'warning' as const,
        source: stateFile,
        path: '',
        message: `${message}; its local servers are not loaded and its approvals count as not given: fix or remove the file, then approve again`,
        ...(at?.line === undefined ? {} : { line: at.line, column: at.column ?? 1 }),
      },
    ],
  });
  let text: string | undefined;
  try {
    text = await fs.readText(stateFile);
  } catch (error) {
    return warn(readProblem(error));
  }
  if (text === undefined) return { state: {}, warnings: [] };
  const r = projectStateIn(text, stateFile, project);
  return r.error ? warn(r.error.message, r.error) : { state: r.state, warnings: [] };
}

/** One project's state; `{}` when the file is missing, unreadable or malformed. */
export async function readProjectState(
  fs: ConfigFs,
  stateFile: string,
  project: string,
): Promise<ProjectState> {
  return (await loadProjectState(fs, stateFile, project)).state;
}

function projectStateIn(
  text: string,
  stateFile: string,
  project: string,
): { state: ProjectState; error?: Diagnostic } {
  const parsed = parseJsoncText(text, stateFile);
  if (parsed.error) return { state: {}, error: parsed.error };
  if (!isRecord(parsed.value))
    return {
      state: {},
      error: { severity: 'error', source: stateFile, path: '', message: 'expected a JSON object' },
    };
  if (!isRecord(parsed.value.projects)) return { state: {} };
  const entry = parsed.value.projects[project];
  return { state: isRecord(entry) ? (entry as ProjectState) : {} };
}

/** Changes one project's approvals, keeping the rest of the file as it was. */
export async function updateApprovals(
  fs: ConfigFs,
  stateFile: string,
  project: string,
  change: (current: ProjectApprovals) => ProjectApprovals,
): Promise<ProjectApprovals> {
  let text: string;
  try {
    text = (await fs.readText(stateFile)) ?? '{}\n';
  } catch (error) {
    throw new ConfigWriteError(`cannot record approvals: ${(error as Error).message}`);
  }
  const read = projectStateIn(text, stateFile, project);
  if (read.error)
    throw new ConfigWriteError(
      `cannot record approvals: ${stateFile}: ${read.error.message}${read.error.line ? ` (line ${read.error.line})` : ''}; fix or remove the file, then approve again`,
    );
  const current = read.state.approvals ?? {};
  const next = change({ ...current });
  const clean: ProjectApprovals = {};
  // Old name-only approvals are dropped on any change: they no longer count anyway.
  const servers = next.servers ?? {};
  const names = Object.keys(servers).sort();
  if (names.length) {
    const sorted: Record<string, ApprovalRecord> = {};
    for (const name of names)
      Object.defineProperty(sorted, name, { value: servers[name], enumerable: true });
    clean.servers = sorted;
  }
  if (next.rejected?.length) clean.rejected = [...new Set(next.rejected)].sort();
  const edits = modify(
    text,
    ['projects', project, 'approvals'],
    Object.keys(clean).length ? clean : undefined,
    {
      formattingOptions: { insertSpaces: true, tabSize: 2 },
    },
  );
  await fs.writeTextAtomic(stateFile, applyEdits(text, edits), { mode: 0o600, dirMode: 0o700 });
  return clean;
}

/** What an approval needs of a resolved server: its name and its record. */
export interface ApprovalTarget {
  name: string;
  /** `ResolvedServer.approval`: a server without one (not from a project file) is skipped. */
  approval?: ApprovalRecord;
}

/**
 * Approves these entries as they are now (file and signature): if an entry changes later,
 * or another file brings a server of that name, it waits for approval again.
 */
export const approve =
  (servers: readonly ApprovalTarget[]) =>
  (a: ProjectApprovals): ProjectApprovals => {
    const next: Record<string, ApprovalRecord> = Object.create(null);
    for (const [name, record] of Object.entries(a.servers ?? {})) next[name] = record;
    const approved = servers.filter((s) => s.approval);
    for (const s of approved) next[s.name] = s.approval!;
    const names = approved.map((s) => s.name);
    return {
      servers: next,
      rejected: (a.rejected ?? []).filter((n) => !names.includes(n)),
    };
  };

/** `approve --all`: every project server that exists now (never files added later). */
export const approveAll = (servers: readonly ApprovalTarget[]) => approve(servers);

export const reject =
  (names: readonly string[]) =>
  (a: ProjectApprovals): ProjectApprovals => {
    const next: Record<string, ApprovalRecord> = Object.create(null);
    for (const [name, record] of Object.entries(a.servers ?? {}))
      if (!names.includes(name)) next[name] = record;
    return { servers: next, rejected: [...(a.rejected ?? []), ...names] };
  };

export const resetApprovals = (): ProjectApprovals => ({});

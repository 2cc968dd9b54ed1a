import { applyEdits, modify } from 'jsonc-parser';
import type { Diagnostic } from './diagnostics.js';
import type { ConfigFs } from './fs.js';
import { parseJsoncText } from './jsonc.js';
import type { ProjectApprovals } from './resolve.js';
import { ConfigWriteError } from './writers.js';

/**
 * Private per-project state, kept in the user's config folder (never in the repository):
 * `{ "projects": { "<project folder>": { "mcpServers": {…}, "approvals": {…} } } }`.
 */
export interface ProjectState {
  mcpServers?: Record<string, unknown>;
  approvals?: ProjectApprovals;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

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
    return warn((error as Error).message);
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
  if (next.enableAll) clean.enableAll = true;
  if (next.approved?.length) clean.approved = [...new Set(next.approved)].sort();
  if (next.rejected?.length) clean.rejected = [...new Set(next.rejected)].sort();
  const edits = modify(
    text,
    ['projects', project, 'approvals'],
    Object.keys(clean).length ? clean : undefined,
    {
      formattingOptions: { insertSpaces: true, tabSize: 2 },
    },
  );
  await fs.writeTextAtomic(stateFile, applyEdits(text, edits), { mode: 0o600 });
  return clean;
}

export const approve =
  (names: readonly string[]) =>
  (a: ProjectApprovals): ProjectApprovals => ({
    ...a,
    approved: [...(a.approved ?? []), ...names],
    rejected: (a.rejected ?? []).filter((n) => !names.includes(n)),
  });

export const approveAll = (a: ProjectApprovals): ProjectApprovals => ({
  ...a,
  enableAll: true,
  rejected: [],
});

export const reject =
  (names: readonly string[]) =>
  (a: ProjectApprovals): ProjectApprovals => ({
    ...a,
    rejected: [...(a.rejected ?? []), ...names],
    approved: (a.approved ?? []).filter((n) => !names.includes(n)),
  });

export const resetApprovals = (): ProjectApprovals => ({});

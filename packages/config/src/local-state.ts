import { applyEdits, modify } from 'jsonc-parser';
import type { ConfigFs } from './fs.js';
import { parseJsoncText } from './jsonc.js';
import type { ProjectApprovals } from './resolve.js';

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

export async function readProjectState(
  fs: ConfigFs,
  stateFile: string,
  project: string,
): Promise<ProjectState> {
  const text = await fs.readText(stateFile);
  return text === undefined ? {} : projectStateIn(text, stateFile, project);
}

function projectStateIn(text: string, stateFile: string, project: string): ProjectState {
  const parsed = parseJsoncText(text, stateFile);
  if (parsed.error || !isRecord(parsed.value) || !isRecord(parsed.value.projects)) return {};
  const entry = parsed.value.projects[project];
  return isRecord(entry) ? (entry as ProjectState) : {};
}

/** Changes one project's approvals, keeping the rest of the file as it was. */
export async function updateApprovals(
  fs: ConfigFs,
  stateFile: string,
  project: string,
  change: (current: ProjectApprovals) => ProjectApprovals,
): Promise<ProjectApprovals> {
  const text = (await fs.readText(stateFile)) ?? '{}\n';
  const current = projectStateIn(text, stateFile, project).approvals ?? {};
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

import path from 'node:path';
import { isRecord } from '@mcpkit/jsonrpc/errors';
import { legacyApprovals } from './approvals.js';
import { type Diagnostic, jsonPath } from './diagnostics.js';
import { type ConfigFs, nodeFs, readProblem } from './fs.js';
import { loadProjectState } from './local-state.js';
import { configPaths, projectFileCandidates } from './paths.js';
import type { Policy } from './policy.js';
import { failClosedReason, parsePolicyFile } from './policy-file.js';
import {
  type ConfigSource,
  type ResolveInput,
  type ResolveResult,
  resolveConfig,
} from './resolve.js';

export interface DynamicConfig {
  /** A file in `.mcp.json` format… */
  file?: string;
  /** …or the same JSON given as a string. */
  json?: string;
}

export interface LoadOptions {
  cwd: string;
  home: string;
  env?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
  fs?: ConfigFs;
  /** Files or JSON strings given at run time; later ones win. */
  dynamic?: readonly DynamicConfig[];
  /** Use only the dynamic configs. */
  strict?: boolean;
  /** Servers contributed by plugins (lowest precedence). */
  plugins?: ReadonlyArray<{ name: string; mcpServers: Record<string, unknown> }>;
  /** Overrides of the platform's file locations (tests, unusual installs). */
  paths?: Partial<ReturnType<typeof configPaths>>;
}

export interface LoadedFile {
  scope: ConfigSource['scope'];
  file: string;
  found: boolean;
}

export interface LoadResult extends ResolveResult {
  /** Every file looked at, found or not. */
  files: LoadedFile[];
  /** The input given to `resolveConfig`: add connector sources to it for the second phase. */
  input: ResolveInput;
  /** Where local state (local servers, approvals) is kept for this project. */
  localStateFile: string;
  project: string;
}

/** Managed settings override the user's allow list; deny lists add up (deny always wins). */
function combinePolicies(
  user: Policy | undefined,
  managed: Policy | undefined,
  failClosed: string[],
): Policy | undefined {
  if (!user && !managed && failClosed.length === 0) return undefined;
  const denied = [...(managed?.deniedMcpServers ?? []), ...(user?.deniedMcpServers ?? [])];
  const allowed = managed?.allowedMcpServers ?? user?.allowedMcpServers;
  const sources = [managed?.source, user?.source].filter(Boolean).join(' and ');
  return {
    ...(allowed === undefined ? {} : { allowedMcpServers: allowed }),
    ...(denied.length || managed?.deniedMcpServers || user?.deniedMcpServers
      ? { deniedMcpServers: denied }
      : {}),
    ...(failClosed.length ? { failClosed } : {}),
    source: sources,
  };
}

/** Reads a policy file; one that exists but cannot be used adds a fail-closed reason. */
async function readPolicyFile(
  fs: ConfigFs,
  file: string,
  diagnostics: Diagnostic[],
  failClosed: string[],
): Promise<Policy | undefined> {
  let text: string | undefined;
  try {
    text = await fs.readText(file);
  } catch (error) {
    const message = readProblem(error);
    diagnostics.push({
      severity: 'error',
      source: file,
      path: '',
      message: `${message}; until this is fixed no server starts`,
    });
    failClosed.push(failClosedReason(file, message));
    return undefined;
  }
  if (text === undefined) return undefined;
  const r = parsePolicyFile(text, file);
  diagnostics.push(...r.diagnostics);
  if (r.unusable) failClosed.push(r.unusable);
  return r.policy;
}

/**
 * Finds and reads every config file for a working directory, then resolves them.
 * Files are read concurrently; a missing file is normal, an unreadable one an error.
 */
export async function loadConfig(options: LoadOptions): Promise<LoadResult> {
  const fs = options.fs ?? nodeFs;
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const paths = { ...configPaths({ home: options.home, env, platform }), ...options.paths };
  const project = (platform === 'win32' ? path.win32 : path.posix).resolve(options.cwd);
  const extra: Diagnostic[] = [];
  const failClosed: string[] = [];
  const files: LoadedFile[] = [];
  const sources: ConfigSource[] = [];

  // Reads run at once, but their results are kept in discovery order, so that every
  // list (files, sources, problems) comes out the same whatever finishes first.
  const slots: Array<{ file?: LoadedFile; source?: ConfigSource; problems: Diagnostic[] }> = [];
  const read = async (
    slot: number,
    scope: ConfigSource['scope'],
    file: string,
    more: Partial<ConfigSource> = {},
    mustExist = false,
  ) => {
    const entry: (typeof slots)[number] = { problems: [] };
    slots[slot] = entry;
    let text: string | undefined;
    try {
      text = await fs.readText(file);
    } catch (error) {
      const message = readProblem(error);
      entry.problems.push({ severity: 'error', source: file, path: '', message });
      // Without the managed file we cannot know which servers it allows: none may run.
      if (scope === 'managed') failClosed.push(failClosedReason(file, message));
    }
    entry.file = { scope, file, found: text !== undefined };
    if (text !== undefined) entry.source = { scope, source: file, text, ...more };
    // Unlike the files we look for, a file the user named must exist.
    else if (mustExist && entry.problems.length === 0) {
      entry.problems.push({ severity: 'error', source: file, path: '', message: 'no such file' });
    }
  };

  const projectFiles = projectFileCandidates(project, platform);
  const dynamic = options.dynamic ?? [];
  let slot = 0;
  const policyProblems: Diagnostic[][] = [[], []];
  const [managedPolicy, userPolicy, loadedState] = await Promise.all([
    readPolicyFile(fs, paths.managedSettings, policyProblems[0]!, failClosed),
    readPolicyFile(fs, paths.userSettings, policyProblems[1]!, failClosed),
    loadProjectState(fs, paths.localState, project),
    read(slot++, 'managed', paths.managedServers),
    read(slot++, 'user', paths.userServers),
    ...projectFiles.map((c) => read(slot++, 'project', c.file, { depth: c.depth })),
    ...dynamic.map((d, i) => {
      const at = slot++;
      if (d.file !== undefined)
        return read(at, 'dynamic', path.resolve(options.cwd, d.file), { order: i }, true);
      slots[at] = {
        problems: [],
        source: {
          scope: 'dynamic',
          source: `dynamic config ${i + 1}`,
          text: d.json ?? '',
          order: i,
        },
      };
      return Promise.resolve();
    }),
  ]);
  const state = loadedState.state;
  extra.push(...policyProblems.flat(), ...loadedState.warnings);
  if (legacyApprovals(state.approvals)) {
    extra.push({
      severity: 'warning',
      source: paths.localState,
      path: jsonPath(['projects', project, 'approvals']),
      message:
        'approvals in the old name-only format no longer count (an approval now records the entry it approved): the project servers wait for approval again',
    });
  }
  for (const entry of slots) {
    if (!entry) continue;
    if (entry.file) files.push(entry.file);
    if (entry.source) sources.push(entry.source);
    extra.push(...entry.problems);
  }
  if (isRecord(state.mcpServers)) {
    sources.push({
      scope: 'local',
      source: `${paths.localState} (project ${project})`,
      file: paths.localState,
      value: { mcpServers: state.mcpServers },
    });
  }
  for (const plugin of options.plugins ?? []) {
    sources.push({
      scope: 'plugin',
      source: `plugin "${plugin.name}"`,
      value: { mcpServers: plugin.mcpServers },
    });
  }
  // Sorted: the reasons read the same whichever file was read first.
  const policy = combinePolicies(userPolicy, managedPolicy, failClosed.sort());
  const input: ResolveInput = {
    sources,
    env,
    ...(policy ? { policy } : {}),
    ...(state.approvals ? { approvals: state.approvals } : {}),
    ...(options.strict ? { strict: true } : {}),
  };
  const result = resolveConfig(input);
  return {
    ...result,
    errors: [...extra.filter((d) => d.severity === 'error'), ...result.errors],
    warnings: [...extra.filter((d) => d.severity === 'warning'), ...result.warnings],
    files,
    input,
    localStateFile: paths.localState,
    project,
  };
}

/**
 * The second phase: servers from a remote source (connectors) join after local files
 * were resolved, so nothing local ever waits on the network. Manual entries win.
 */
export function withConnectors(
  input: ResolveInput,
  connectors: Record<string, unknown>,
  source = 'connectors',
): ResolveResult {
  return resolveConfig({
    ...input,
    sources: [...input.sources, { scope: 'connector', source, value: { mcpServers: connectors } }],
  });
}

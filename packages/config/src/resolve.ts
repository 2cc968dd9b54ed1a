import { isRecord } from '@mcpkit/jsonrpc/errors';
import { type ApprovalNeeded, approvalStatus, type ProjectApprovals } from './approvals.js';
import { type Diagnostic, jsonPath } from './diagnostics.js';
import { expandServer, referencedVariables } from './expand.js';
import { parseJsoncText } from './jsonc.js';
import { evaluatePolicy, type Policy, type PolicyDecision } from './policy.js';
import type { ServerConfig } from './schemas.js';
import { type ApprovalRecord, approvalRecord, serverSignature } from './signature.js';
import { validateServerEntry } from './validate-entry.js';

/**
 * Where a server entry came from. `enterprise` is an alias of `managed`; `connector`
 * entries come from a remote source and are resolved in a second phase.
 */
export const SCOPES = [
  'managed',
  'enterprise',
  'plugin',
  'user',
  'project',
  'local',
  'dynamic',
  'connector',
] as const;
export type Scope = (typeof SCOPES)[number];

/** plugin < user < project < local < dynamic; connectors yield to everything. */
const RANK: Record<Scope, number> = {
  connector: 0,
  plugin: 1,
  user: 2,
  project: 3,
  local: 4,
  dynamic: 5,
  managed: 6,
  enterprise: 6,
};
const MANUAL: ReadonlySet<Scope> = new Set([
  'user',
  'project',
  'local',
  'dynamic',
  'managed',
  'enterprise',
]);

/** Scopes the user wrote themselves (or chose to install): a project entry replacing one is news. */
const OWN: ReadonlySet<Scope> = new Set(['user', 'plugin']);

export interface ConfigSource {
  scope: Scope;
  /** The file path, or a label such as `--config argument 1`. */
  source: string;
  /**
   * The file the entries live in, when `source` says more than its path (a local-scope
   * entry lives in the state file, under its project: `source` names both). Writers and
   * tools that compare locations compare this, never the label.
   */
  file?: string;
  /** Raw text (JSON with comments allowed), parsed here. */
  text?: string;
  /** Or an already-parsed value. */
  value?: unknown;
  /** Where the servers object is inside the value. Default `['mcpServers']`. */
  serversPath?: readonly string[];
  /** Project scope: how many folders above the working directory (0 = the working directory). */
  depth?: number;
  /** Among sources of the same scope and depth, a higher `order` wins (dynamic: later arguments). */
  order?: number;
}

export interface ResolveInput {
  sources: readonly ConfigSource[];
  /** For `${VAR}` expansion. */
  env?: Readonly<Record<string, string | undefined>>;
  policy?: Policy;
  approvals?: ProjectApprovals;
  /** Use only `dynamic` sources. */
  strict?: boolean;
}

/**
 * Only `enabled` servers may be started. `skipped` is never set by `resolveConfig`: a host
 * sets it on an entry it will not start for a reason of its own, said in `reason` (the
 * mcpkit CLI: an entry that runs its own gateway, `mcpkit serve`).
 */
export type ServerStatus =
  | 'enabled'
  | 'pending-approval'
  | 'rejected'
  | 'blocked'
  | 'disabled'
  | 'skipped';

export interface ServerOrigin {
  name: string;
  scope: Scope;
  source: string;
  /** The source's `file`, when it has one (see `ConfigSource.file`). */
  file?: string;
}

export interface ResolvedServer extends ServerOrigin {
  /** The entry with `${VAR}` expanded and `type` filled in. */
  config: ServerConfig;
  status: ServerStatus;
  /** Why the status is what it is, in one sentence. */
  reason: string;
  policy: PolicyDecision;
  /** Variables referenced without a value or default (left as written). */
  missingVariables: string[];
  /**
   * Every variable the entry reads, set or not (`${HOME}`, `${API_KEY:-x}` → `HOME`,
   * `API_KEY`). Always set by `resolveConfig`; optional so that hosts that build a
   * `ResolvedServer` by hand need not.
   */
  referencedVariables?: string[];
  /** Project servers: the record an approval of this entry stores (the entry as written). */
  approval?: ApprovalRecord;
  /**
   * Entries of the user's own scopes (user, plugin) with the same name that this project
   * entry replaces: the user may think their own server runs.
   */
  replaces?: ServerOrigin[];
  /** `pending-approval` only: never approved, changed since approved, or approved by name only. */
  approvalNeeded?: ApprovalNeeded;
}

export interface DroppedServer extends ServerOrigin {
  config: ServerConfig;
  /** `overridden`: same name in a higher scope; `duplicate`: same server (signature) configured by hand. */
  because: 'overridden' | 'duplicate' | 'managed-exclusive' | 'strict';
  by?: ServerOrigin;
}

export interface ResolveResult {
  /** One entry per name, sorted by name. Only `enabled` servers may be started. */
  servers: ResolvedServer[];
  dropped: DroppedServer[];
  warnings: Diagnostic[];
  errors: Diagnostic[];
}

interface Candidate extends ServerOrigin {
  config: ServerConfig;
  rank: number;
  depth: number;
  order: number;
  index: number;
}

function collect(input: ResolveInput, warnings: Diagnostic[], errors: Diagnostic[]): Candidate[] {
  const candidates: Candidate[] = [];
  input.sources.forEach((src, index) => {
    let value = src.value;
    if (src.text !== undefined) {
      const parsed = parseJsoncText(src.text, src.source);
      if (parsed.error) {
        errors.push(parsed.error);
        return;
      }
      warnings.push(...parsed.duplicates);
      value = parsed.value;
    }
    if (value === undefined) return;
    const at = [...(src.serversPath ?? ['mcpServers'])];
    let servers: unknown = value;
    for (const key of at) servers = isRecord(servers) ? servers[key] : undefined;
    if (servers === undefined) {
      if (!isRecord(value))
        errors.push({
          severity: 'error',
          source: src.source,
          path: '',
          message: 'expected a JSON object',
        });
      return;
    }
    if (!isRecord(servers)) {
      errors.push({
        severity: 'error',
        source: src.source,
        path: jsonPath(at),
        message: 'expected an object of servers',
      });
      return;
    }
    for (const [name, raw] of Object.entries(servers)) {
      const { config, diagnostics } = validateServerEntry(name, raw, src.source, [...at, name]);
      for (const d of diagnostics) (d.severity === 'error' ? errors : warnings).push(d);
      if (!config) continue;
      candidates.push({
        name,
        scope: src.scope,
        source: src.source,
        ...(src.file === undefined ? {} : { file: src.file }),
        config,
        rank: RANK[src.scope],
        depth: src.depth ?? 0,
        order: src.order ?? 0,
        index,
      });
    }
  });
  return candidates;
}

const origin = (c: ServerOrigin): ServerOrigin => ({
  name: c.name,
  scope: c.scope,
  source: c.source,
  ...(c.file === undefined ? {} : { file: c.file }),
});

/**
 * Names and paths in UTF-16 code-unit order: the same on every machine, whatever the
 * locale. (`localeCompare` followed the locale, and its first call loads ICU's collation
 * data, about 14 % of a `node -e 0` in instructions, on every `mcpkit list`; issue #21.)
 */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Resolves server entries from every source into one list: precedence, managed
 * exclusivity, strict mode, `${VAR}` expansion, de-duplication, policy and approvals.
 * Pure: no I/O, never throws on any input; problems are returned, one per bad entry.
 */
export function resolveConfig(input: ResolveInput): ResolveResult {
  const warnings: Diagnostic[] = [];
  const errors: Diagnostic[] = [];
  const dropped: DroppedServer[] = [];
  let candidates = collect(input, warnings, errors);

  const managedPresent = input.sources.some(
    (s) => s.scope === 'managed' || s.scope === 'enterprise',
  );
  if (managedPresent || input.strict) {
    const keep = (c: Candidate) =>
      managedPresent ? c.scope === 'managed' || c.scope === 'enterprise' : c.scope === 'dynamic';
    for (const c of candidates) {
      if (!keep(c))
        dropped.push({
          ...origin(c),
          config: c.config,
          because: managedPresent ? 'managed-exclusive' : 'strict',
        });
    }
    candidates = candidates.filter(keep);
  }

  // Lowest precedence first; the reading order of files never matters.
  candidates.sort(
    (a, b) =>
      a.rank - b.rank ||
      b.depth - a.depth ||
      a.order - b.order ||
      byCodeUnits(a.source, b.source) ||
      a.index - b.index,
  );
  const winners = new Map<string, Candidate>();
  for (const c of candidates) winners.set(c.name, c);
  const replaced = new Map<Candidate, ServerOrigin[]>();
  for (const c of candidates) {
    const winner = winners.get(c.name)!;
    if (winner === c) continue;
    dropped.push({ ...origin(c), config: c.config, because: 'overridden', by: origin(winner) });
    if (winner.scope === 'project' && OWN.has(c.scope))
      replaced.set(winner, [...(replaced.get(winner) ?? []), origin(c)]);
  }

  const expanded = [...winners.values()].map((c) => {
    const { entry, missing } = expandServer(c.config as Record<string, unknown>, input.env ?? {});
    for (const m of missing) {
      warnings.push({
        severity: 'warning',
        source: c.source,
        path: jsonPath(['mcpServers', c.name, ...m.path]),
        message: `\${${m.variable}} is not set and has no default; left as written`,
      });
    }
    return {
      candidate: c,
      config: entry as ServerConfig,
      missing: [...new Set(missing.map((m) => m.variable))],
    };
  });

  // Manual configuration beats plugin and connector entries for the same server.
  const bySignature = new Map<string, Candidate>();
  const ordered = [...expanded].sort(
    (a, b) =>
      Number(MANUAL.has(b.candidate.scope)) - Number(MANUAL.has(a.candidate.scope)) ||
      b.candidate.rank - a.candidate.rank ||
      byCodeUnits(a.candidate.name, b.candidate.name),
  );
  const survivors = new Set<Candidate>();
  for (const e of ordered) {
    const c = e.candidate;
    const signature = serverSignature(e.config);
    const holder = signature === undefined ? undefined : bySignature.get(signature);
    if (holder && !MANUAL.has(c.scope)) {
      dropped.push({ ...origin(c), config: e.config, because: 'duplicate', by: origin(holder) });
      continue;
    }
    if (signature !== undefined && !holder) bySignature.set(signature, c);
    survivors.add(c);
  }

  const servers: ResolvedServer[] = [];
  for (const e of expanded) {
    const c = e.candidate;
    if (!survivors.has(c)) continue;
    const policy = evaluatePolicy(c.name, e.config, input.policy);
    // Approval is of the entry as written, so that expansion differences never re-prompt.
    const approval = c.scope === 'project' ? approvalRecord(c.config, c.source) : undefined;
    let status: ServerStatus = 'enabled';
    let reason = 'enabled';
    let approvalNeeded: ApprovalNeeded | undefined;
    if (!policy.allowed) {
      status = 'blocked';
      reason = `blocked by policy: ${policy.reason}`;
    } else if (e.config.disabled) {
      status = 'disabled';
      reason = `disabled in ${c.source}`;
    } else if (c.scope === 'project') {
      ({ status, reason, approvalNeeded } = approvalStatus(
        c.name,
        c.source,
        approval!,
        input.approvals,
      ));
    }
    const replaces = c.scope === 'project' ? replaced.get(c) : undefined;
    servers.push({
      ...origin(c),
      config: e.config,
      status,
      reason,
      policy,
      missingVariables: e.missing,
      referencedVariables: referencedVariables(c.config as Record<string, unknown>),
      ...(approval ? { approval } : {}),
      ...(replaces?.length ? { replaces } : {}),
      ...(approvalNeeded ? { approvalNeeded } : {}),
    });
  }
  servers.sort((a, b) => byCodeUnits(a.name, b.name));
  return { servers, dropped, warnings, errors };
}

import type { Diagnostic, LoadResult, ResolvedServer } from '@mcpkit/config';
import { formatDiagnostic } from '@mcpkit/config';
import type { ManagerHandlers } from '@mcpkit/manager';
import { errorText, listFailure, summarize, toolIssueLines } from '../core/advice.js';
import { assertMayContact } from '../core/gate.js';
import { UsageError } from '../core/io.js';
import { openManager } from '../core/open-manager.js';
import { type CliContext, notStartedHint } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import type { TraceFile } from '../core/trace.js';
import { neutralize } from '../terminal/neutralize.js';
import type { Output } from '../terminal/output.js';
import {
  authFinding,
  commandFinding,
  doctorDefaults,
  type Finding,
  urlFinding,
} from './doctor-checks.js';

export type { Finding } from './doctor-checks.js';

export interface DoctorOptions {
  json: boolean;
  /** `--timeout`: the connect budget, the ping's timeout, and the URL probe's (at most 10 s). */
  timeoutMs: number;
  shutdown: Shutdown;
  handlers?: (server: string) => ManagerHandlers | undefined;
  /** `--trace`: every message in both directions. */
  trace?: TraceFile;
}

/** What doctor says about one server. */
export interface ServerReport {
  name: string;
  scope: string;
  source: string;
  transport: string;
  /**
   * The config's status (`enabled`, `pending-approval`, …), then the connection's state;
   * `invalid` for an entry too broken to load (no scope or transport then).
   */
  status: string;
  findings: Finding[];
}

export interface DoctorReport {
  ok: boolean;
  /** Config problems that belong to no one server (a file that does not parse, say). */
  config: Finding[];
  servers: ServerReport[];
}

/** Bounds on what is kept of a server's stderr and warnings while it is examined. */
const STDERR_TAIL_LINES = 5;
const STDERR_KEEP_CHARS = 4096;
const WARNINGS_KEPT = 5;

function entryPath(d: Diagnostic, name: string): boolean {
  return [`mcpServers.${name}`, `mcpServers[${JSON.stringify(name)}]`].some(
    (p) => d.path === p || d.path.startsWith(`${p}.`) || d.path.startsWith(`${p}[`),
  );
}

/** The entry a diagnostic is about (`mcpServers.x…` or `mcpServers["x y"]…`), if any. */
function entryName(d: Diagnostic): string | undefined {
  const m = /^mcpServers(?:\.([A-Za-z_$][\w$-]*)|\[("(?:[^"\\]|\\.)*")\])/.exec(d.path);
  if (!m) return undefined;
  if (m[1] !== undefined) return m[1];
  try {
    return JSON.parse(m[2]!) as string;
  } catch {
    return undefined;
  }
}

const MISSING_VARIABLE = /is not set and has no default/;

function configFindings(server: ResolvedServer, resolved: LoadResult): Finding[] {
  const findings: Finding[] = [];
  for (const d of [...resolved.errors, ...resolved.warnings]) {
    if (
      d.source !== server.source ||
      !entryPath(d, server.name) ||
      MISSING_VARIABLE.test(d.message)
    )
      continue;
    findings.push({
      check: 'config',
      level: d.severity,
      message: formatDiagnostic(d),
      next: `fix the entry in ${server.source}`,
    });
  }
  for (const variable of server.missingVariables)
    findings.push({
      check: 'variable',
      level: 'error',
      message: `\${${variable}} is not set and has no default (the entry uses it as written)`,
      next: `set ${variable} in the environment, or give it a default as \${${variable}:-value} in ${server.source}`,
    });
  return findings;
}

function statusFinding(server: ResolvedServer): Finding {
  const hint = notStartedHint(server);
  return {
    check: 'status',
    // Disabled is the user's own choice; the others wait for a decision.
    level: server.status === 'disabled' ? 'info' : 'warning',
    message: `${server.status}: not contacted`,
    ...(hint ? { next: hint } : {}),
  };
}

/**
 * `mcpkit doctor [name...]`: per server, its config problems and missing variables, then —
 * only for a server the config lets start (the same gate as every command) — its command
 * on PATH or its URL, its sign-in, a connect through the manager with the negotiated
 * version, a ping, its stderr and its warnings. Exit 1 when anything is an error or a
 * warning.
 */
export async function doctorCommand(
  out: Output,
  ctx: CliContext,
  resolved: LoadResult,
  names: readonly string[],
  options: DoctorOptions,
): Promise<number> {
  const diagnostics = [...resolved.errors, ...resolved.warnings];
  // Problems of the config that no loaded server owns: an entry too broken to load is
  // reported under its own name, the rest (a file that does not parse) under "config".
  const orphan = diagnostics.filter(
    (d) => !resolved.servers.some((s) => s.source === d.source && entryPath(d, s.name)),
  );
  const invalid = new Map<string, ServerReport>();
  for (const d of orphan) {
    const name = entryName(d);
    if (name === undefined || (names.length > 0 && !names.includes(name))) continue;
    const report = invalid.get(name) ?? {
      name,
      scope: '',
      source: d.source,
      transport: '',
      status: 'invalid',
      findings: [],
    };
    report.findings.push({
      check: 'config',
      level: d.severity,
      message: formatDiagnostic(d),
      next: `fix the entry "${name}" in ${d.source}; it is not loaded until then`,
    });
    invalid.set(name, report);
  }
  const known = [...resolved.servers.map((s) => s.name), ...invalid.keys()];
  for (const name of names)
    if (!known.includes(name))
      throw new UsageError(`no server named "${name}"; "mcpkit list" shows the configured servers`);
  const chosen = resolved.servers.filter((s) => names.length === 0 || names.includes(s.name));
  const reports = new Map<string, ServerReport>();
  for (const server of chosen)
    reports.set(server.name, {
      name: server.name,
      scope: server.scope,
      source: server.source,
      transport: server.config.type ?? 'stdio',
      status: server.status,
      findings: configFindings(server, resolved),
    });
  const enabled = chosen.filter((s) => s.status === 'enabled');
  for (const server of chosen)
    if (server.status !== 'enabled') reports.get(server.name)!.findings.push(statusFinding(server));

  const probeMs = Math.min(options.timeoutMs, doctorDefaults.urlProbeTimeoutMs);
  const reachable = new Set<string>();
  await Promise.all(
    enabled.map(async (server) => {
      // The one gate before any probe: nothing the config does not start is contacted.
      assertMayContact(server);
      const findings = reports.get(server.name)!.findings;
      const config = server.config as { type?: string; url?: string };
      let found: Finding | undefined;
      if ((config.type ?? 'stdio') === 'stdio') found = await commandFinding(server, ctx);
      else if (config.url) found = await urlFinding(config.url, server.name, probeMs);
      if (found) findings.push(found);
      const auth = await authFinding(server, ctx);
      if (auth) findings.push(auth);
      if (found?.level !== 'error') reachable.add(server.name);
    }),
  );
  options.shutdown.signal.throwIfAborted();
  await examine(
    enabled.filter((s) => reachable.has(s.name)),
    ctx,
    options,
    reports,
  );

  const report: DoctorReport = {
    ok: false,
    config: orphan
      .filter((d) => entryName(d) === undefined)
      .map((d) => ({
        check: 'config',
        level: d.severity,
        message: formatDiagnostic(d),
        next: `fix ${d.source}`,
      })),
    servers: [...reports.values(), ...invalid.values()].sort((a, b) =>
      a.name.localeCompare(b.name),
    ),
  };
  const bad = (f: Finding) => f.level === 'error' || f.level === 'warning';
  report.ok = !report.config.some(bad) && !report.servers.some((s) => s.findings.some(bad));
  // Findings are the CLI's words and may quote a configured URL: its credentials are hidden
  // by position. A server's stderr lines are its data and stay as it wrote them.
  const said = (f: Finding): Finding =>
    f.check === 'stderr'
      ? f
      : {
          ...f,
          message: out.redact(f.message),
          ...(f.next !== undefined ? { next: out.redact(f.next) } : {}),
        };
  const shown: DoctorReport = {
    ...report,
    config: report.config.map(said),
    servers: report.servers.map((s) => ({ ...s, findings: s.findings.map(said) })),
  };
  if (options.json) out.json(shown);
  else out.stdout(renderReport(shown));
  return report.ok ? 0 : 1;
}

/**
 * Connects the servers that passed the static checks through one manager (the CLI's
 * session: gate, shutdown, timeouts), pings each connected one, and adds what each said
 * on stderr and any warnings.
 */
async function examine(
  servers: ResolvedServer[],
  ctx: CliContext,
  options: DoctorOptions,
  reports: Map<string, ServerReport>,
): Promise<void> {
  if (servers.length === 0) return;
  const stderr = new Map<string, string>();
  const warnings = new Map<string, string[]>();
  const warningCount = new Map<string, number>();
  const manager = openManager(servers, ctx, {
    timeoutMs: options.timeoutMs,
    shutdown: options.shutdown,
    ...(options.handlers ? { handlers: options.handlers } : {}),
    ...(options.trace ? { trace: options.trace } : {}),
    onstderr: (server, text) =>
      stderr.set(server, ((stderr.get(server) ?? '') + text).slice(-STDERR_KEEP_CHARS)),
    onwarning: (server, error) => {
      // A failed list and a repaired or left-out tool are findings of their own (below).
      if (isListWarning(error)) return;
      warningCount.set(server, (warningCount.get(server) ?? 0) + 1);
      const kept = warnings.get(server) ?? [];
      if (kept.length < WARNINGS_KEPT) kept.push(errorText(error));
      warnings.set(server, kept);
    },
  });
  try {
    await manager.connectAll({ signal: options.shutdown.signal });
    const call = { signal: options.shutdown.signal, timeoutMs: options.timeoutMs };
    await Promise.all(
      manager.snapshot().servers.map(async (state) => {
        const report = reports.get(state.name)!;
        const findings = report.findings;
        report.status = state.state;
        if (state.state !== 'connected') {
          const s = summarize(state);
          findings.push({
            check: 'connect',
            level: 'error',
            message: s.reason || s.state,
            ...(s.next ? { next: s.next } : {}),
          });
          if (state.state === 'failed' && state.stderrTail && !stderr.has(state.name))
            stderr.set(state.name, state.stderrTail);
          return;
        }
        const info = state.serverInfo
          ? `${state.serverInfo.name} ${state.serverInfo.version}, `
          : '';
        findings.push({
          check: 'connect',
          level: 'ok',
          // The version only, as `servers` shows it (the era in words is in `get`).
          message: `${state.protocolVersion}, ${info}${state.connectMs} ms`,
        });
        // Connected, but a list failed (degraded) or tools of its list did not fit.
        const now = manager.state(state.name);
        if (now?.state === 'connected') {
          for (const f of now.degraded ?? []) {
            const words = listFailure(state.name, f);
            findings.push({
              check: 'lists',
              level: 'error',
              message: words.reason,
              next: words.next,
            });
          }
          const issues = toolIssueLines(now);
          if (issues.length > 0)
            findings.push({
              check: 'tools',
              level: 'warning',
              message: issues.join('\n'),
              next: "the server's tool schemas do not fit MCP: report it to the server's authors",
            });
        }
        const started = performance.now();
        try {
          await (await manager.client(state.name, call)).ping(call);
          findings.push({
            check: 'ping',
            level: 'ok',
            message: `${(performance.now() - started).toFixed(1)} ms`,
          });
        } catch (error) {
          findings.push({
            check: 'ping',
            level: 'error',
            message: errorText(error),
            next: `run "mcpkit -v servers -s ${state.name}" to see its stderr and warnings`,
          });
        }
      }),
    );
  } finally {
    await manager.close();
  }
  for (const [server, text] of stderr) {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) continue;
    reports.get(server)?.findings.push({
      check: 'stderr',
      level: 'info',
      message: lines.slice(-STDERR_TAIL_LINES).join('\n'),
    });
  }
  for (const [server, kept] of warnings) {
    const more = (warningCount.get(server) ?? kept.length) - kept.length;
    reports.get(server)?.findings.push({
      check: 'warning',
      level: 'warning',
      message: [...kept, ...(more > 0 ? [`… and ${more} more`] : [])].join('\n'),
      next: kept.some((m) => /not JSON|stdout/i.test(m))
        ? 'the server writes lines that are not JSON-RPC on stdout, where only messages belong (its logs go to stderr): fix the server or its arguments'
        : `run "mcpkit -v servers -s ${server}" to see its warnings as they come`,
    });
  }
}

const MARK: Record<Finding['level'], string> = { ok: '✔', info: '·', warning: '!', error: '✖' };

/** The report for a terminal: every server line, each finding under it with its next step. */
export function renderReport(report: DoctorReport): string {
  const lines: string[] = [];
  const finding = (f: Finding) => {
    const [first, ...more] = neutralize(f.message, { newlines: true }).split('\n');
    lines.push(`  ${MARK[f.level]} ${f.check.padEnd(8)} ${first}`);
    for (const line of more) lines.push(`  ${' '.repeat(11)}${line}`);
    if (f.next) lines.push(`  ${' '.repeat(11)}next: ${neutralize(f.next)}`);
  };
  if (report.config.length > 0) {
    lines.push('config');
    report.config.forEach(finding);
  }
  for (const s of report.servers) {
    lines.push(
      s.status === 'invalid'
        ? `${neutralize(s.name)} (invalid entry in ${neutralize(s.source)})`
        : `${neutralize(s.name)} (${s.transport}, ${s.scope}: ${neutralize(s.source)})`,
    );
    s.findings.forEach(finding);
  }
  const bad = report.servers.filter((s) =>
    s.findings.some((f) => f.level === 'error' || f.level === 'warning'),
  );
  lines.push(
    report.ok
      ? `${report.servers.length} server${report.servers.length === 1 ? '' : 's'}: no problem found`
      : `${bad.length} of ${report.servers.length} server${report.servers.length === 1 ? ' needs' : 's need'} attention${report.config.length ? '; the config has problems' : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The manager's warnings that doctor reports as findings of their own. */
function isListWarning(error: Error): boolean {
  return (
    (error as { code?: unknown }).code === 'MCPKIT_INVALID_TOOL' ||
    /^server "[^"]*": listing (tools|prompts|resources) failed: /.test(error.message)
  );
}

import { type LoadResult, redactServerConfig } from '@mcpkit/config';
import type { ServerState } from '@mcpkit/manager';
import { listFailure, summarize, toolIssueLines } from '../core/advice.js';
import { UsageError } from '../core/io.js';
import { notStartedHint } from '../core/server-selection.js';
import type { Output } from '../terminal/output.js';
import { parameterLines } from '../terminal/signature.js';
import { noServerSync, type ServerCommandRun } from './server-command-run.js';

/**
 * `mcpkit get <name>`: one server in full — its entry (secrets redacted unless
 * --show-secrets), scope and file, the config's decision, and once connected its state,
 * capabilities, instructions and tools (with their host names).
 */
export async function getCommand(
  out: Output,
  resolved: LoadResult,
  run: ServerCommandRun,
  rest: string[],
  options: { json: boolean; showSecrets: boolean },
): Promise<number> {
  const [name] = rest;
  if (!name || rest.length > 1) throw new UsageError('usage: mcpkit get <name>');
  const entry = resolved.servers.find((s) => s.name === name);
  if (!entry)
    throw noServerSync(
      name,
      resolved.servers.map((s) => s.name),
    );
  const config = options.showSecrets ? entry.config : redactServerConfig(entry.config);
  const decision = { status: entry.status, reason: entry.reason || undefined };
  const base = { name, scope: entry.scope, source: entry.source, config, decision };
  if (entry.status !== 'enabled') {
    const hint = notStartedHint(entry);
    if (options.json) out.json({ ...base, state: 'not started', reason: hint });
    else out.stdout(`${lines(base)}state:    not started: ${hint}\n`);
    return 0;
  }
  return run.inspect(name, async (state: ServerState, tools) => {
    if (state.state !== 'connected') {
      // The CLI's words about the state, which may quote the configured URL.
      const summary = summarize(state);
      const s = { ...summary, reason: out.redact(summary.reason), next: out.redact(summary.next) };
      if (options.json) out.json({ ...base, state: s.state, reason: s.reason, next: s.next });
      else
        out.stdout(
          `${lines(base)}state:    ${s.state}: ${s.reason}\n${s.next ? `next:     ${s.next}\n` : ''}`,
        );
      return 1;
    }
    // Connected, but a list failed: degraded, each failure with its next step.
    const degraded = (state.degraded ?? []).map((f) => ({
      list: f.list,
      ...listFailure(name, f),
    }));
    const warnings = toolIssueLines(state);
    const detail = {
      state: degraded.length > 0 ? 'degraded' : 'connected',
      ...(degraded.length > 0
        ? { degraded: degraded.map((d) => ({ list: d.list, error: d.reason, next: d.next })) }
        : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
      protocolVersion: state.protocolVersion,
      era: state.era,
      server: state.serverInfo,
      connectMs: state.connectMs,
      capabilities: state.capabilities,
      instructions: state.instructions,
      tools: tools.map((t) => ({
        name: t.tool,
        hostName: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
    };
    if (options.json) out.json({ ...base, ...detail });
    else
      out.stdout(
        `${lines(base)}state:    ${detail.state}, protocol ${state.protocolVersion}, ${state.connectMs} ms\n` +
          `era:      ${eraWords(state.era)}\n` +
          degraded.map((d) => `          ${d.reason}\nnext:     ${d.next}\n`).join('') +
          warnings.map((w) => `warning:  ${w}\n`).join('') +
          `server:   ${state.serverInfo?.name ?? '?'} ${state.serverInfo?.version ?? ''}\n` +
          `capabilities: ${Object.keys(state.capabilities).join(', ') || 'none'}\n` +
          (state.instructions
            ? `instructions:\n  ${state.instructions.split('\n').join('\n  ')}\n`
            : '') +
          `tools (${tools.length}):\n${tools
            .map(
              (t) =>
                `  ${t.tool}  (${t.name})\n${t.description ? `    ${t.description.split('\n')[0]!.trim()}\n` : ''}${parameterLines(
                  t.inputSchema,
                  '      ',
                )
                  .map((l) => `${l}\n`)
                  .join('')}`,
            )
            .join('')}`,
      );
    return degraded.length > 0 ? 1 : 0;
  });
}

function lines(base: {
  scope: string;
  source: string;
  config: unknown;
  decision: { status: string; reason: string | undefined };
}): string {
  return (
    `scope:    ${base.scope} (${base.source})\n` +
    `decision: ${base.decision.status}${base.decision.reason && base.decision.reason !== base.decision.status ? ` (${base.decision.reason})` : ''}\n` +
    `entry:    ${JSON.stringify(base.config)}\n`
  );
}

/** The protocol era in a user's words (`--json` keeps `era`: `legacy` or `modern`). */
export function eraWords(era: 'legacy' | 'modern'): string {
  return era === 'legacy'
    ? 'a 2024–2025 revision (connects with an initialize handshake; sessions over HTTP)'
    : 'the 2026 revision (stateless: server/discover, no sessions)';
}

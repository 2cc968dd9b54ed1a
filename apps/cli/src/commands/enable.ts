import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  formatDiagnostic,
  parseJsoncText,
  scopeTarget,
  updateServer,
  type WritableScope,
} from '@mcpkit/config';
import type { Io } from '../core/io.js';
import { UsageError } from '../core/io.js';
import { type CliContext, resolveServers, type ServerSelection } from '../core/server-selection.js';
import { writeOptions, writtenTo } from './config.js';

const WRITABLE: readonly string[] = ['local', 'user', 'project'];

/**
 * `mcpkit enable <name>` / `mcpkit disable <name>`: sets or removes `"disabled": true` on
 * the entry that wins, in the file it comes from, through `@mcpkit/config`'s writer. The
 * entry is read back from that file as written, so `${VAR}` references stay references
 * (the resolved entry has them expanded and must never be written).
 */
export async function enableCommand(
  io: Io,
  ctx: CliContext,
  selection: ServerSelection,
  command: 'enable' | 'disable',
  rest: string[],
): Promise<number> {
  const [name] = rest;
  if (!name || rest.length > 1) throw new UsageError(`usage: mcpkit ${command} <name>`);
  const result = await resolveServers(ctx, selection);
  const entry = result.servers.find((s) => s.name === name);
  if (!entry)
    throw new UsageError(`no server named "${name}"; "mcpkit list" shows the configured servers`);
  if (!WRITABLE.includes(entry.scope))
    throw new Error(
      `server "${name}" comes from ${entry.source} (${entry.scope} scope), which mcpkit does not write; edit that file, or add your own entry with "mcpkit add"`,
    );
  const scope = entry.scope as WritableScope;
  const options = writeOptions(ctx);
  const { file, at } = scopeTarget(scope, options);
  // A local entry's source names the state file and its project; the file is what counts.
  if (path.resolve(file) !== path.resolve(entry.file ?? entry.source))
    throw new Error(
      `server "${name}" comes from ${entry.source}, not from ${file}; edit that file by hand`,
    );
  const parsed = parseJsoncText(await readFile(file, 'utf8'), file);
  if (parsed.error) throw new Error(`${formatDiagnostic(parsed.error)}; fix the file first`);
  let raw: unknown = parsed.value;
  for (const key of [...at, name]) raw = (raw as Record<string, unknown> | undefined)?.[key];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new Error(`${file}: the entry of "${name}" is not an object; fix it by hand`);
  const next: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  if (command === 'disable') next.disabled = true;
  else delete next.disabled;
  await updateServer(scope, name, next, options);
  io.stdout(
    `${command === 'disable' ? 'disabled' : 'enabled'} server "${name}" in ${writtenTo(scope, file, ctx)}\n`,
  );
  if (command === 'enable' && entry.status !== 'enabled' && entry.status !== 'disabled')
    io.stderr(`mcpkit: note: server "${name}" is also ${entry.status}; "mcpkit list" says why\n`);
  return 0;
}

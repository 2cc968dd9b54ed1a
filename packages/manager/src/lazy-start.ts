import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedServer } from '@mcpkit/config';
import type { Tool } from '@mcpkit/protocol';
import { serverFingerprint } from './reload.js';

/** Keep each server's last tool list on disk, so `tools()` can answer before it starts. */
export interface LazyStartOptions {
  /** A directory of this host's own (created 0700). */
  cacheDir: string;
  /** A cache file larger than this is ignored. Default 4 MiB. */
  maxFileBytes?: number;
}

const FORMAT = 1;

/**
 * The cache file of a server: a hash of its name, signature and entry, so an edit
 * invalidates it and two entries with the same config under different names do not share
 * (and keep overwriting) one file.
 */
export function toolCacheFile(cacheDir: string, server: ResolvedServer): string {
  const key = createHash('sha256')
    .update(JSON.stringify([server.name, serverFingerprint(server)]))
    .digest('hex')
    .slice(0, 40);
  return path.join(cacheDir, `${key}.json`);
}

function isTool(value: unknown): value is Tool {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return (
    typeof t.name === 'string' &&
    t.name.length > 0 &&
    t.name.length <= 512 &&
    (t.description === undefined || typeof t.description === 'string') &&
    typeof t.inputSchema === 'object' &&
    t.inputSchema !== null
  );
}

/**
 * The cached tool list of a server, or undefined when there is none, it is too big, or it
 * is not what this module wrote (a cache file is input like any other: checked, not trusted).
 */
export async function readToolCache(
  options: LazyStartOptions,
  server: ResolvedServer,
): Promise<Tool[] | undefined> {
  const file = toolCacheFile(options.cacheDir, server);
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > (options.maxFileBytes ?? 4 * 1024 * 1024)) return undefined;
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { format, name, tools } = parsed as { format?: unknown; name?: unknown; tools?: unknown };
    if (format !== FORMAT || name !== server.name || !Array.isArray(tools)) return undefined;
    return tools.every(isTool) ? tools : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a server's tool list (0600, atomically: a reader never sees half a file). */
export async function writeToolCache(
  options: LazyStartOptions,
  server: ResolvedServer,
  tools: readonly Tool[],
): Promise<void> {
  await mkdir(options.cacheDir, { recursive: true, mode: 0o700 });
  const file = toolCacheFile(options.cacheDir, server);
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(
    temp,
    JSON.stringify({ format: FORMAT, name: server.name, savedAt: new Date().toISOString(), tools }),
    { mode: 0o600 },
  );
  await rename(temp, file);
}

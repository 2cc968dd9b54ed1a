import path from 'node:path';
import { McpkitError, type McpkitErrorOptions } from '@mcpkit/jsonrpc/errors';
import { applyEdits, modify } from 'jsonc-parser';
import { formatDiagnostic } from './diagnostics.js';
import { ConfigErrorCode } from './errors.js';
import { type ConfigFs, nodeFs } from './fs.js';
import { parseJsoncText } from './jsonc.js';
import { configPaths } from './paths.js';
import { secretValues } from './redact.js';
import type { ServerConfig } from './schemas.js';
import { SERVER_NAME_PATTERN } from './server-types.js';
import { validateServerEntry } from './validate-entry.js';

export type WritableScope = 'project' | 'user' | 'local';

export interface WriteOptions {
  cwd: string;
  home: string;
  env?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
  fs?: ConfigFs;
  paths?: Partial<ReturnType<typeof configPaths>>;
}

/** Why a write was refused, as a fact an application can word: the name was taken or missing. */
export interface ConfigWriteConflict {
  reason: 'exists' | 'not-found';
  scope: WritableScope;
  server: string;
  file: string;
}

/** A config file could not be changed; the message names the file, the cause and the fix. */
export class ConfigWriteError extends McpkitError {
  static readonly brand: string = '@mcpkit/config.ConfigWriteError';
  override readonly name: string = 'ConfigWriteError';
  /** Set when the server's name was already taken (add) or not there (update, remove). */
  readonly conflict: ConfigWriteConflict | undefined;
  constructor(message: string, options?: McpkitErrorOptions & { conflict?: ConfigWriteConflict }) {
    super(ConfigErrorCode.Write, message, options);
    this.conflict = options?.conflict;
  }
}

/** The file and the JSON path of a scope's servers object. */
export function scopeTarget(
  scope: WritableScope,
  options: WriteOptions,
): { file: string; at: string[] } {
  const platform = options.platform ?? process.platform;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const paths = {
    ...configPaths({ home: options.home, env: options.env ?? process.env, platform }),
    ...options.paths,
  };
  if (scope === 'project')
    return { file: p.join(p.resolve(options.cwd), '.mcp.json'), at: ['mcpServers'] };
  if (scope === 'user') return { file: paths.userServers, at: ['mcpServers'] };
  return { file: paths.localState, at: ['projects', p.resolve(options.cwd), 'mcpServers'] };
}

async function edit(
  scope: WritableScope,
  name: string,
  value: unknown,
  options: WriteOptions,
  mustExist: boolean | undefined,
): Promise<string> {
  if (!SERVER_NAME_PATTERN.test(name)) {
    throw new ConfigWriteError(
      `server name "${name}" may contain only letters, digits, "-" and "_"`,
    );
  }
  const fs = options.fs ?? nodeFs;
  const { file, at } = scopeTarget(scope, options);
  const text = (await fs.readText(file)) ?? '{}\n';
  const parsed = parseJsoncText(text, file);
  if (parsed.error)
    throw new ConfigWriteError(
      `${formatDiagnostic(parsed.error)}; fix the file before changing it`,
    );
  let servers: unknown = parsed.value;
  for (const key of at) servers = (servers as Record<string, unknown> | undefined)?.[key];
  const exists = servers !== undefined && Object.hasOwn(servers as object, name);
  if (mustExist === true && !exists)
    throw new ConfigWriteError(`${file}: no server named "${name}" in the ${scope} scope`, {
      conflict: { reason: 'not-found', scope, server: name, file },
    });
  if (mustExist === false && exists) {
    throw new ConfigWriteError(
      `${file}: a server named "${name}" already exists in the ${scope} scope; remove it first (removeServer) or replace it (updateServer)`,
      { conflict: { reason: 'exists', scope, server: name, file } },
    );
  }
  const edits = modify(text, [...at, name], value, {
    formattingOptions: { insertSpaces: true, tabSize: 2 },
  });
  const next = applyEdits(text, edits);
  // A file that holds env or header values (or any other credential) is written 0600 in a
  // folder made 0700, and an existing one is tightened; local state is always private.
  // Any other file keeps the mode it has.
  const secret = scope === 'local' || holdsSecrets(parseJsoncText(next, file).value, at);
  await fs.writeTextAtomic(
    file,
    next.endsWith('\n') ? next : `${next}\n`,
    secret ? { mode: 0o600, dirMode: 0o700 } : undefined,
  );
  return file;
}

/** Whether a server entry under `at` has env or header values, or a credential elsewhere. */
function holdsSecrets(document: unknown, at: readonly string[]): boolean {
  let servers: unknown = document;
  for (const key of at) servers = (servers as Record<string, unknown> | undefined)?.[key];
  if (typeof servers !== 'object' || servers === null) return false;
  const filled = (v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
  return Object.values(servers).some((entry) => {
    if (typeof entry !== 'object' || entry === null) return false;
    const e = entry as Record<string, unknown>;
    return filled(e.env) || filled(e.headers) || secretValues(e as ServerConfig).length > 0;
  });
}

function checked(name: string, config: unknown): unknown {
  if (!SERVER_NAME_PATTERN.test(name)) {
    throw new ConfigWriteError(
      `server name "${name}" may contain only letters, digits, "-" and "_"`,
    );
  }
  const { config: valid, diagnostics } = validateServerEntry(name, config, 'server', []);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (!valid || errors.length > 0) {
    throw new ConfigWriteError(
      `invalid server "${name}": ${errors.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ')}`,
    );
  }
  return config;
}

/** Adds a server; fails if the name is taken in that scope. Returns the file written. */
export async function addServer(
  scope: WritableScope,
  name: string,
  config: unknown,
  options: WriteOptions,
): Promise<string> {
  return edit(scope, name, checked(name, config), options, false);
}

/** Replaces an existing server entry as a whole. */
export async function updateServer(
  scope: WritableScope,
  name: string,
  config: unknown,
  options: WriteOptions,
): Promise<string> {
  return edit(scope, name, checked(name, config), options, true);
}

/** Removes a server; fails if it is not there. */
export async function removeServer(
  scope: WritableScope,
  name: string,
  options: WriteOptions,
): Promise<string> {
  return edit(scope, name, undefined, options, true);
}

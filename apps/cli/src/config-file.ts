import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** A stdio server entry of a `.mcp.json` file (the first cut of the CLI runs these). */
export interface StdioServerEntry {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface RemoteServerEntry {
  type: string;
  url: string;
}

export type ServerEntry = StdioServerEntry | RemoteServerEntry;

export interface ConfigFile {
  path: string;
  /** Stdio servers run with this working directory: the folder of the config file. */
  directory: string;
  servers: Map<string, ServerEntry>;
  /** Entries that could not be used, each naming the file, the JSON path and the problem. */
  problems: string[];
}

export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
}

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position ? lineColumn(text, Number(position[1])) : undefined;
    throw new ConfigFileError(
      `${file}${where ? `:${where.line}:${where.column}` : ''}: not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}`,
    );
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a `.mcp.json`-format file: `{ "mcpServers": { name: { command, args, env } } }`. */
export async function readConfigFile(file: string): Promise<ConfigFile> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigFileError(
      code === 'ENOENT'
        ? `${file}: no such file; pass an existing .mcp.json with --config`
        : `${file}: cannot read: ${(error as Error).message}`,
    );
  }
  const json = parseJson(text, file);
  if (!isRecord(json) || !isRecord(json.mcpServers)) {
    throw new ConfigFileError(`${file}: mcpServers: expected an object of servers`);
  }
  const servers = new Map<string, ServerEntry>();
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(json.mcpServers)) {
    const at = `${file}: mcpServers.${name}`;
    if (!isRecord(raw)) {
      problems.push(`${at}: expected an object`);
      continue;
    }
    const type = raw.type ?? 'stdio';
    if (type !== 'stdio') {
      if (typeof raw.url !== 'string') problems.push(`${at}.url: expected a URL`);
      else servers.set(name, { type: String(type), url: raw.url });
      continue;
    }
    if (typeof raw.url === 'string' && raw.type === undefined) {
      problems.push(`${at}: has a "url" but no "type"; add "type": "http" or "sse"`);
      continue;
    }
    if (typeof raw.command !== 'string' || raw.command.length === 0) {
      problems.push(`${at}.command: expected a non-empty string`);
      continue;
    }
    if (
      raw.args !== undefined &&
      (!Array.isArray(raw.args) || raw.args.some((a) => typeof a !== 'string'))
    ) {
      problems.push(`${at}.args: expected an array of strings`);
      continue;
    }
    if (
      raw.env !== undefined &&
      (!isRecord(raw.env) || Object.values(raw.env).some((v) => typeof v !== 'string'))
    ) {
      problems.push(`${at}.env: expected an object of strings`);
      continue;
    }
    servers.set(name, {
      type: 'stdio',
      command: raw.command,
      args: (raw.args as string[] | undefined) ?? [],
      env: (raw.env as Record<string, string> | undefined) ?? {},
    });
  }
  return { path: absolute, directory: path.dirname(absolute), servers, problems };
}

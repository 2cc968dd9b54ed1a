import { isRecord } from '@mcpkit/jsonrpc/errors';
import { parseJsoncText } from '../jsonc.js';
import { SERVER_NAME_PATTERN } from '../server-types.js';
import { validateServerEntry } from '../validate-entry.js';

/** Hosts whose config formats can be imported. */
export const IMPORT_SOURCES = [
  'claude-desktop',
  'claude-code',
  'vscode',
  'cursor',
  'cline',
  'windsurf',
  'zed',
] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

export interface ImportResult {
  /** Entries in `.mcp.json` format, ready for `addServer`. */
  servers: Record<string, Record<string, unknown>>;
  /** Entries that could not be imported, and why. */
  skipped: Array<{ name: string; reason: string }>;
  /** Things changed or dropped on the way, per server. */
  notes: Array<{ name: string; note: string }>;
}

export interface ImportOptions {
  /** Claude Code: also import the local-scope servers of this project folder. */
  project?: string;
  /** VS Code / Cursor: the value of `${workspaceFolder}`. */
  workspaceFolder?: string;
  /** Cursor: the value of `${userHome}`. */
  home?: string;
}

type Raw = Record<string, unknown>;

class Collector {
  readonly result: ImportResult = { servers: {}, skipped: [], notes: [] };
  note(name: string, note: string) {
    this.result.notes.push({ name, note });
  }
  skip(name: string, reason: string) {
    this.result.skipped.push({ name, reason });
  }
  /** Keeps the entry if it is valid in our format; otherwise reports why not. */
  add(name: string, entry: Raw) {
    let finalName = name;
    if (!SERVER_NAME_PATTERN.test(name)) {
      finalName = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'server';
      this.note(
        finalName,
        `renamed from "${name}" (names may contain only letters, digits, "-" and "_")`,
      );
    }
    const clean = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined));
    const { config, diagnostics } = validateServerEntry(finalName, clean, 'import', []);
    if (!config) {
      this.skip(
        name,
        diagnostics.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; '),
      );
      return;
    }
    this.result.servers[finalName] = clean;
  }
}

/** `${env:NAME}` → `${NAME}`; `${input:id}` → `${ID}`; `${workspaceFolder}`/`${userHome}` → the given folders. */
function translateVariables(
  value: unknown,
  name: string,
  out: Collector,
  options: ImportOptions,
): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([^}]+)\}/g, (match, body: string) => {
      if (body.startsWith('env:')) return `\${${body.slice(4)}}`;
      if (body.startsWith('input:')) {
        const variable = body
          .slice(6)
          .toUpperCase()
          .replace(/[^A-Z0-9]+/g, '_');
        out.note(
          name,
          `${match} (asked for interactively) became \${${variable}}: set that environment variable`,
        );
        return `\${${variable}}`;
      }
      if (body === 'workspaceFolder' && options.workspaceFolder) return options.workspaceFolder;
      if (body === 'userHome' && options.home) return options.home;
      if (body === 'workspaceFolder' || body === 'userHome') {
        out.note(name, `${match} left as written: pass the folder to the importer to resolve it`);
      }
      return match;
    });
  }
  if (Array.isArray(value)) return value.map((v) => translateVariables(v, name, out, options));
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, translateVariables(v, name, out, options)]),
    );
  }
  return value;
}

function dropFields(
  entry: Raw,
  fields: readonly string[],
  name: string,
  out: Collector,
  why: string,
): void {
  for (const field of fields) {
    if (entry[field] !== undefined) {
      out.note(name, `"${field}" dropped: ${why}`);
      delete entry[field];
    }
  }
}

/** The common `mcpServers` shape (Claude Desktop, Claude Code, Cursor, Cline, Windsurf). */
function standardEntry(
  name: string,
  raw: unknown,
  out: Collector,
  host: ImportSource,
): Raw | undefined {
  if (!isRecord(raw)) {
    out.skip(name, 'expected an object');
    return undefined;
  }
  const entry: Raw = { ...raw };
  // Cline: transport names and a timeout in seconds.
  const transport = entry.type ?? entry.transportType;
  delete entry.transportType;
  if (transport === 'streamableHttp') entry.type = 'http';
  else if (transport !== undefined) entry.type = transport;
  if (host === 'cline' && typeof entry.timeout === 'number') {
    entry.timeout = entry.timeout * 1000;
    out.note(name, 'timeout converted from seconds to milliseconds');
  }
  // Windsurf: remote servers use "serverUrl".
  if (entry.serverUrl !== undefined && entry.url === undefined) {
    entry.url = entry.serverUrl;
    delete entry.serverUrl;
  }
  if (entry.url !== undefined && entry.type === undefined) {
    entry.type = 'http';
    out.note(
      name,
      'remote server without a type: imported as "http" (Streamable HTTP); use "sse" for a legacy SSE server',
    );
  }
  dropFields(
    entry,
    ['alwaysAllow', 'autoApprove'],
    name,
    out,
    "tool auto-approval is the host's decision, not the server config's",
  );
  if (entry.disabled === false) delete entry.disabled;
  return entry;
}

function importMcpServers(
  servers: unknown,
  out: Collector,
  host: ImportSource,
  options: ImportOptions,
  where: string,
) {
  if (servers === undefined) return;
  if (!isRecord(servers)) {
    out.skip(where, 'expected an object of servers');
    return;
  }
  for (const [name, raw] of Object.entries(servers)) {
    const entry = standardEntry(name, raw, out, host);
    if (entry) out.add(name, translateVariables(entry, name, out, options) as Raw);
  }
}

function importVscode(value: Raw, out: Collector, options: ImportOptions) {
  const inputs = Array.isArray(value.inputs) ? value.inputs : [];
  if (inputs.length > 0) {
    out.note(
      '*',
      `${inputs.length} input(s) declared: each \${input:id} becomes an environment variable`,
    );
  }
  const servers = value.servers ?? value.mcpServers;
  if (!isRecord(servers)) return;
  for (const [name, raw] of Object.entries(servers)) {
    if (!isRecord(raw)) {
      out.skip(name, 'expected an object');
      continue;
    }
    const entry: Raw = { ...raw };
    dropFields(
      entry,
      ['envFile'],
      name,
      out,
      'env files are not read; copy the variables into "env"',
    );
    dropFields(
      entry,
      ['dev', 'cwd', 'sandboxEnabled', 'sandbox'],
      name,
      out,
      'not part of the .mcp.json format',
    );
    if (entry.url !== undefined && entry.type === undefined) entry.type = 'http';
    out.add(name, translateVariables(entry, name, out, options) as Raw);
  }
}

function importZed(value: Raw, out: Collector, options: ImportOptions) {
  const servers = value.context_servers;
  if (!isRecord(servers)) return;
  for (const [name, raw] of Object.entries(servers)) {
    if (!isRecord(raw)) {
      out.skip(name, 'expected an object');
      continue;
    }
    if (raw.source === 'extension') {
      out.skip(name, 'provided by a Zed extension: there is no command to import');
      continue;
    }
    let entry: Raw;
    if (isRecord(raw.command)) {
      // Older Zed: "command": { "path", "args", "env" }.
      entry = { command: raw.command.path, args: raw.command.args, env: raw.command.env };
    } else if (raw.url !== undefined) {
      entry = { type: 'http', url: raw.url, headers: raw.headers };
    } else {
      entry = { command: raw.command, args: raw.args, env: raw.env };
    }
    if (raw.enabled === false) entry.disabled = true;
    if (raw.settings !== undefined)
      out.note(name, '"settings" dropped: they are Zed extension settings');
    out.add(name, translateVariables(entry, name, out, options) as Raw);
  }
}

/**
 * Converts another host's MCP config into `.mcp.json` entries. Maps what it can and
 * reports what it cannot (skipped entries, dropped fields, variables to set).
 */
export function importServers(
  host: ImportSource,
  text: string,
  options: ImportOptions = {},
): ImportResult {
  const out = new Collector();
  const parsed = parseJsoncText(text, host);
  if (parsed.error) {
    out.skip(
      '*',
      `${parsed.error.message} at line ${parsed.error.line}, column ${parsed.error.column}`,
    );
    return out.result;
  }
  if (!isRecord(parsed.value)) {
    out.skip('*', 'expected a JSON object');
    return out.result;
  }
  const value = parsed.value;
  switch (host) {
    case 'vscode':
      importVscode(value, out, options);
      break;
    case 'zed':
      importZed(value, out, options);
      break;
    case 'claude-code': {
      importMcpServers(value.mcpServers, out, host, options, 'mcpServers');
      const projects = isRecord(value.projects) ? value.projects : {};
      if (options.project !== undefined) {
        const entry = projects[options.project];
        if (isRecord(entry))
          importMcpServers(entry.mcpServers, out, host, options, `projects.${options.project}`);
      }
      break;
    }
    default:
      importMcpServers(value.mcpServers, out, host, options, 'mcpServers');
  }
  return out.result;
}

/** Where each host keeps its config, relative to the home folder (or the project). */
export const IMPORT_LOCATIONS: Record<
  ImportSource,
  { linux?: string; darwin?: string; win32?: string; project?: string }
> = {
  'claude-desktop': {
    darwin: 'Library/Application Support/Claude/claude_desktop_config.json',
    win32: 'AppData/Roaming/Claude/claude_desktop_config.json',
    linux: '.config/Claude/claude_desktop_config.json',
  },
  'claude-code': {
    linux: '.claude.json',
    darwin: '.claude.json',
    win32: '.claude.json',
    project: '.mcp.json',
  },
  vscode: { project: '.vscode/mcp.json' },
  cursor: {
    linux: '.cursor/mcp.json',
    darwin: '.cursor/mcp.json',
    win32: '.cursor/mcp.json',
    project: '.cursor/mcp.json',
  },
  cline: {
    linux:
      '.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    darwin:
      'Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
    win32:
      'AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
  },
  windsurf: {
    linux: '.codeium/windsurf/mcp_config.json',
    darwin: '.codeium/windsurf/mcp_config.json',
    win32: '.codeium/windsurf/mcp_config.json',
  },
  zed: {
    linux: '.config/zed/settings.json',
    darwin: '.config/zed/settings.json',
    win32: 'AppData/Roaming/Zed/settings.json',
  },
};

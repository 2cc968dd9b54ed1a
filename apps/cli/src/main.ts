import { parseArgs } from 'node:util';
import type { McpClient } from '@mcpkit/client';
import { ConfigFileError, readConfigFile } from './config-file.js';
import { type Connected, connectServers } from './connect.js';
import { formatPrompt, formatResource, formatToolResult, table } from './format.js';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const VERSION = '0.1.0';

export const USAGE = `mcpkit ${VERSION} — inspect and call MCP servers

Usage:
  mcpkit [options] servers                         connect to every server and show its status
  mcpkit [options] tools                           list the tools of every server
  mcpkit [options] call <server> <tool> [json]     call a tool with JSON arguments
  mcpkit [options] resources                       list resources
  mcpkit [options] read <server> <uri>             read a resource
  mcpkit [options] prompts                         list prompts
  mcpkit [options] prompt <server> <name> [json]   get a prompt with JSON arguments

Options:
  -c, --config <file>   servers file in .mcp.json format (default: ./.mcp.json)
  -s, --server <name>   only this server (repeatable) for the list commands
      --json            machine-readable output on stdout
      --timeout <ms>    per-request timeout (default 60000)
  -v, --verbose         copy server stderr to our stderr
  -h, --help            this text
      --version         the version
`;

class UsageError extends Error {}

const COMMANDS = ['servers', 'tools', 'call', 'resources', 'read', 'prompts', 'prompt'];

function parseJsonArgument(
  text: string | undefined,
  what: string,
): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be a JSON object, like '{"a": 1}'`);
  }
  return value as Record<string, unknown>;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(`mcpkit: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (values.version) {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (!command) {
    io.stderr(USAGE);
    return 2;
  }
  if (!COMMANDS.includes(command)) {
    io.stderr(`mcpkit: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  const timeoutMs = values.timeout === undefined ? 60_000 : Number(values.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    io.stderr('mcpkit: --timeout must be a positive number of milliseconds\n');
    return 2;
  }
  try {
    const config = await readConfigFile(values.config ?? '.mcp.json');
    for (const problem of config.problems) io.stderr(`mcpkit: warning: ${problem}\n`);
    const run = new Runner(io, values.json ?? false, timeoutMs, values.verbose ?? false, config);
    switch (command) {
      case 'servers':
        return await run.servers(values.server);
      case 'tools':
        return await run.list(
          'tools',
          values.server,
          (c) => c.listTools(),
          (t) => [t.name, t.description ?? ''],
        );
      case 'resources':
        return await run.list(
          'resources',
          values.server,
          (c) => c.listResources(),
          (r) => [r.uri, r.name],
        );
      case 'prompts':
        return await run.list(
          'prompts',
          values.server,
          (c) => c.listPrompts(),
          (p) => [
            p.name +
              (p.arguments?.length
                ? ` (${p.arguments.map((a) => a.name + (a.required ? '' : '?')).join(', ')})`
                : ''),
            p.description ?? '',
          ],
        );
      case 'call': {
        const [server, tool, json] = need(rest, 2, 'call <server> <tool> [json-args]');
        const args = parseJsonArgument(json, 'tool arguments');
        return await run.one(server, async (client) => {
          const result = await client.callTool({
            name: tool,
            ...(args ? { arguments: args } : {}),
          });
          return {
            output: result,
            text: formatToolResult(result),
            failed: result.isError === true,
          };
        });
      }
      case 'read': {
        const [server, uri] = need(rest, 2, 'read <server> <uri>');
        return await run.one(server, async (client) => {
          const result = await client.readResource(uri);
          return { output: result, text: formatResource(result), failed: false };
        });
      }
      case 'prompt': {
        const [server, name, json] = need(rest, 2, 'prompt <server> <name> [json-args]');
        const args = parseJsonArgument(json, 'prompt arguments');
        for (const [k, v] of Object.entries(args ?? {})) {
          if (typeof v !== 'string')
            throw new UsageError(`prompt argument "${k}" must be a string`);
        }
        return await run.one(server, async (client) => {
          const result = await client.getPrompt(name, args as Record<string, string> | undefined);
          return { output: result, text: formatPrompt(result), failed: false };
        });
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`mcpkit: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof ConfigFileError) {
      io.stderr(`mcpkit: ${error.message}\n`);
      return 1;
    }
    io.stderr(`mcpkit: ${(error as Error).message}\n`);
    return 1;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      server: { type: 'string', short: 's', multiple: true },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
    },
  });
}

function need(rest: string[], count: number, usage: string): [string, string, string | undefined] {
  if (rest.length < count || rest.length > count + 1)
    throw new UsageError(`usage: mcpkit ${usage}`);
  return [rest[0]!, rest[1]!, rest[2]];
}

class Runner {
  constructor(
    private readonly io: Io,
    private readonly json: boolean,
    private readonly timeoutMs: number,
    private readonly verbose: boolean,
    private readonly config: Awaited<ReturnType<typeof readConfigFile>>,
  ) {}

  private async connect(names: readonly string[]) {
    return connectServers(this.config, names, {
      timeoutMs: this.timeoutMs,
      ...(this.verbose
        ? {
            stderr: (name: string, text: string) => this.io.stderr(prefixLines(`[${name}] `, text)),
          }
        : {}),
    });
  }

  private selected(filter: string[] | undefined): string[] {
    const all = [...this.config.servers.keys()];
    if (!filter || filter.length === 0) return all;
    for (const name of filter) {
      if (!this.config.servers.has(name))
        throw new UsageError(`no server named "${name}" in ${this.config.path}`);
    }
    return filter;
  }

  async servers(filter: string[] | undefined): Promise<number> {
    const { connected, failed } = await this.connect(this.selected(filter));
    try {
      const rows = [
        ...connected.map((c) => ({
          name: c.name,
          status: 'connected',
          protocolVersion: c.client.protocolVersion,
          server: c.client.serverInfo,
        })),
        ...failed.map((f) => ({ name: f.name, status: 'failed', error: f.error.message })),
      ];
      if (this.json) this.io.stdout(`${JSON.stringify({ servers: rows }, null, 2)}\n`);
      else {
        this.io.stdout(
          `${table(
            rows.map((r) => [
              r.name,
              'error' in r
                ? `failed: ${r.error}`
                : `connected  ${r.server?.name ?? '?'} ${r.server?.version ?? ''}  protocol ${r.protocolVersion}`,
            ]),
            '',
          )}\n`,
        );
      }
      return failed.length > 0 ? 1 : 0;
    } finally {
      await closeAll(connected);
    }
  }

  async list<T>(
    what: string,
    filter: string[] | undefined,
    fetch: (client: McpClient) => Promise<T[]>,
    row: (item: T) => [string, string],
  ): Promise<number> {
    const { connected, failed } = await this.connect(this.selected(filter));
    const errors = failed.map((f) => ({ server: f.name, error: f.error.message }));
    const results: Array<{ name: string; items: T[] }> = [];
    try {
      await Promise.all(
        connected.map(async (c) => {
          try {
            results.push({ name: c.name, items: await fetch(c.client) });
          } catch (error) {
            errors.push({ server: c.name, error: (error as Error).message });
          }
        }),
      );
    } finally {
      await closeAll(connected);
    }
    results.sort((a, b) => a.name.localeCompare(b.name));
    if (this.json) {
      this.io.stdout(
        `${JSON.stringify({ servers: results.map((r) => ({ name: r.name, [what]: r.items })), errors }, null, 2)}\n`,
      );
    } else {
      for (const r of results) {
        this.io.stdout(`${r.name} (${r.items.length} ${what})\n`);
        if (r.items.length > 0) this.io.stdout(`${table(r.items.map(row))}\n`);
      }
    }
    for (const e of errors) this.io.stderr(`mcpkit: ${e.error}\n`);
    return errors.length > 0 ? 1 : 0;
  }

  async one(
    server: string,
    action: (client: McpClient) => Promise<{ output: unknown; text: string; failed: boolean }>,
  ): Promise<number> {
    if (!this.config.servers.has(server))
      throw new UsageError(`no server named "${server}" in ${this.config.path}`);
    const { connected, failed } = await this.connect([server]);
    if (failed[0]) {
      this.io.stderr(`mcpkit: ${failed[0].error.message}\n`);
      return 1;
    }
    try {
      const { output, text, failed: isError } = await action(connected[0]!.client);
      this.io.stdout(this.json ? `${JSON.stringify(output, null, 2)}\n` : `${text}\n`);
      return isError ? 1 : 0;
    } catch (error) {
      this.io.stderr(`mcpkit: ${(error as Error).message}\n`);
      return 1;
    } finally {
      await closeAll(connected);
    }
  }
}

async function closeAll(connected: Connected[]): Promise<void> {
  await Promise.all(connected.map((c) => c.client.close().catch(() => {})));
}

function prefixLines(prefix: string, text: string): string {
  return text
    .split('\n')
    .map((line, i, all) => (i === all.length - 1 && line === '' ? '' : prefix + line))
    .join('\n');
}

import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { LoopbackAuthorization } from '@mcpkit/auth';
import type { McpClient } from '@mcpkit/client';
import { ConfigWriteError, type LoadResult } from '@mcpkit/config';
import {
  addCommand,
  addJsonCommand,
  approvalCommand,
  type Io,
  importCommand,
  listCommand,
  removeCommand,
  UsageError,
} from './config-commands.js';
import { type Connected, connectServers, oauthFor } from './connect.js';
import { formatPrompt, formatResource, formatToolResult, table } from './format.js';
import {
  type CliContext,
  notStartedHint,
  problems,
  resolveServers,
  type ServerSelection,
} from './servers.js';

export type { Io } from './config-commands.js';

export const VERSION = '0.1.0';

export const USAGE = `mcpkit ${VERSION} — inspect and call MCP servers

Using servers:
  mcpkit [options] servers                         connect to every enabled server and show its status
  mcpkit [options] tools                           list the tools of every server
  mcpkit [options] call <server> <tool> [json]     call a tool with JSON arguments
  mcpkit [options] resources                       list resources
  mcpkit [options] read <server> <uri>             read a resource
  mcpkit [options] prompts                         list prompts
  mcpkit [options] prompt <server> <name> [json]   get a prompt with JSON arguments

Serving (a gateway: every server behind one MCP server; see SERVE.md):
  mcpkit [options] serve [--http [host:]port]      stdio by default; --http serves Streamable HTTP on /mcp
      --token <t>           bearer token for --http (or MCPKIT_SERVE_TOKEN; required off loopback)
      --separator <s>       between server and tool names (default "__")
      --no-prefix           one server (--server): names unchanged
      --tools <patterns>    allow/deny tools: "server/tool", "tool", "*" wildcards, "!" denies (repeatable)

Authorization:
  mcpkit login <server> [--no-browser]             sign in to a remote server (OAuth); tokens kept 0600
  mcpkit logout <server>                           forget its tokens and registration

Configuring servers:
  mcpkit list                                      every server: scope, file, status, and why
  mcpkit add [--transport t] <name> <command|url> [-- args...]
  mcpkit add-json <name> '<json>'
  mcpkit remove <name>
  mcpkit approve <name...> | --all                 allow project (.mcp.json) servers to start
  mcpkit reject <name...>
  mcpkit reset-project-choices
  mcpkit import --from <host> [file] [--dry-run]   hosts: claude-desktop, claude-code, vscode, cursor, cline, windsurf, zed

Options:
  -c, --config <file|json>  extra servers (dynamic scope; repeatable; later wins)
      --strict-config       use only the --config servers
  -s, --server <name>       only this server (repeatable) for the list commands
      --scope <scope>       where add/remove/import write: local (default), project, user
      --transport <t>       add: stdio (default), http, sse, ws
  -e, --env <K=V>           add: environment variable for a stdio server (repeatable)
  -H, --header <N: v>       add: header for a remote server (repeatable)
      --json                machine-readable output on stdout
      --timeout <ms>        per-request timeout (default 60000)
  -v, --verbose             copy server stderr to our stderr
  -h, --help                this text
      --version             the version
`;

const COMMANDS = [
  'servers',
  'tools',
  'call',
  'resources',
  'read',
  'prompts',
  'prompt',
  'list',
  'add',
  'add-json',
  'remove',
  'approve',
  'reject',
  'reset-project-choices',
  'import',
  'login',
  'logout',
  'serve',
];

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
export async function main(
  argv: readonly string[],
  io: Io,
  ctx: CliContext = { cwd: process.cwd(), home: homedir(), env: process.env },
): Promise<number> {
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
  const selection: ServerSelection = {
    config: values.config,
    strict: values['strict-config'] ?? false,
  };
  try {
    switch (command) {
      case 'list':
        return await listCommand(io, ctx, selection, values.json ?? false);
      case 'add':
        return await addCommand(io, ctx, rest, values);
      case 'add-json':
        return await addJsonCommand(io, ctx, rest, values.scope);
      case 'remove':
        return await removeCommand(io, ctx, rest, values.scope);
      case 'approve':
      case 'reject':
      case 'reset-project-choices':
        return await approvalCommand(io, ctx, selection, command, rest, values.all ?? false);
      case 'import':
        return await importCommand(io, ctx, rest, {
          from: values.from,
          scope: values.scope,
          dryRun: values['dry-run'],
        });
    }
    const resolved = await resolveServers(ctx, selection);
    for (const line of problems(resolved)) io.stderr(`mcpkit: ${line}\n`);
    if (command === 'serve') {
      if (rest.length > 0) throw new UsageError('usage: mcpkit serve [--http [host:]port]');
      const { serveCommand } = await import('./serve/serve-command.js');
      return await serveCommand(io, ctx, resolved, values, timeoutMs, VERSION);
    }
    if (command === 'login' || command === 'logout')
      return await authCommand(io, ctx, resolved, command, rest, values['no-browser'] ?? false);
    const run = new Runner(
      io,
      values.json ?? false,
      timeoutMs,
      values.verbose ?? false,
      resolved,
      ctx,
    );
    const failedConfig = resolved.errors.length > 0 ? 1 : 0;
    switch (command) {
      case 'servers':
        return Math.max(failedConfig, await run.servers(values.server));
      case 'tools':
        return Math.max(
          failedConfig,
          await run.list(
            'tools',
            values.server,
            (c) => c.listTools(),
            (t) => [t.name, t.description ?? ''],
          ),
        );
      case 'resources':
        return Math.max(
          failedConfig,
          await run.list(
            'resources',
            values.server,
            (c) => c.listResources(),
            (r) => [r.uri, r.name],
          ),
        );
      case 'prompts':
        return Math.max(
          failedConfig,
          await run.list(
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
          ),
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
    if (error instanceof ConfigWriteError) {
      io.stderr(`mcpkit: ${error.message}\n`);
      return 1;
    }
    io.stderr(`mcpkit: ${(error as Error).message}\n`);
    return 1;
  }
}

/** `mcpkit login <server>` and `mcpkit logout <server>`. */
async function authCommand(
  io: Io,
  ctx: CliContext,
  resolved: LoadResult,
  command: 'login' | 'logout',
  rest: string[],
  noBrowser: boolean,
): Promise<number> {
  if (rest.length !== 1) throw new UsageError(`usage: mcpkit ${command} <server>`);
  const name = rest[0]!;
  const server = resolved.servers.find((s) => s.name === name);
  if (!server)
    throw new UsageError(`no server named "${name}"; "mcpkit list" shows the configured servers`);
  const config = server.config;
  if (
    !('url' in config) ||
    config.type === 'ws' ||
    config.type === 'ws-ide' ||
    config.type === 'sse-ide'
  )
    throw new UsageError(`server "${name}" is not an HTTP server; only those sign in with OAuth`);
  if (command === 'logout') {
    await oauthFor(server, ctx).logout();
    io.stdout(`Logged out of ${name}: its tokens and registration are forgotten.\n`);
    return 0;
  }
  const oauth = 'oauth' in config ? config.oauth : undefined;
  const loopback = new LoopbackAuthorization({
    ...(oauth?.callbackPort ? { port: oauth.callbackPort } : {}),
    open: !noBrowser,
    print: (line) => io.stderr(`${line}\n`),
  });
  await oauthFor(server, ctx, loopback).login();
  io.stdout(`Logged in to ${name}.\n`);
  return 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c', multiple: true },
      'strict-config': { type: 'boolean' },
      scope: { type: 'string' },
      transport: { type: 'string' },
      env: { type: 'string', short: 'e', multiple: true },
      header: { type: 'string', short: 'H', multiple: true },
      from: { type: 'string' },
      all: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      server: { type: 'string', short: 's', multiple: true },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      'no-browser': { type: 'boolean' },
      http: { type: 'string' },
      token: { type: 'string' },
      separator: { type: 'string' },
      'no-prefix': { type: 'boolean' },
      tools: { type: 'string', multiple: true },
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
    private readonly resolved: LoadResult,
    private readonly ctx: CliContext,
  ) {}

  private async connect(names: readonly string[]) {
    const servers = this.resolved.servers.filter((s) => names.includes(s.name));
    for (const s of servers)
      if (s.status !== 'enabled') this.io.stderr(`mcpkit: ${notStartedHint(s)}\n`);
    return connectServers(
      servers.filter((s) => s.status === 'enabled'),
      this.ctx,
      {
        timeoutMs: this.timeoutMs,
        ...(this.verbose
          ? {
              stderr: (name: string, text: string) =>
                this.io.stderr(prefixLines(`[${name}] `, text)),
            }
          : {}),
      },
    );
  }

  private selected(filter: string[] | undefined): string[] {
    const all = this.resolved.servers.map((s) => s.name);
    if (!filter || filter.length === 0) return all;
    for (const name of filter) {
      if (!all.includes(name))
        throw new UsageError(
          `no server named "${name}"; "mcpkit list" shows the configured servers`,
        );
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
          era: c.client.era,
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
    const entry = this.resolved.servers.find((s) => s.name === server);
    if (!entry)
      throw new UsageError(
        `no server named "${server}"; "mcpkit list" shows the configured servers`,
      );
    if (entry.status !== 'enabled') {
      this.io.stderr(`mcpkit: ${notStartedHint(entry)}\n`);
      return 1;
    }
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

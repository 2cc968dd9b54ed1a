import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigWriteError } from '@mcpkit/config';
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
import { formatPrompt, formatResource, formatToolResult } from './format.js';
import { authCommand, loginDefaults } from './login.js';
import { parseMsFlag } from './numbers.js';
import { Output } from './output.js';
import { Runner } from './runner.js';
import { type CliContext, problems, resolveServers, type ServerSelection } from './servers.js';
import { type InterruptedError, Shutdown } from './signals.js';

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
      --timeout <ms>        per-request timeout (default 60000; 1 to 2147483647)
      --login-timeout <ms>  login: the whole sign-in (default 300000)
      --sanitize            call/read/prompt: escape terminal controls even into a pipe or file
      --show-secrets        print header/env values, URL passwords and query values as they are
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

export interface MainOptions {
  /**
   * Signal handling: its signal cancels what runs, it closes every connection on SIGINT,
   * SIGTERM and SIGHUP. `bin.ts` installs one; by default none is installed.
   */
  shutdown?: Shutdown;
  /** Whether stdout is a terminal: a server's results are then neutralized. */
  stdoutIsTTY?: boolean;
}

/** A usage error: one line (node:util's parser writes several), and where to read more. */
function usageLine(message: string): string {
  return `mcpkit: ${message.replace(/\s*\n\s*/g, ' ')} (see "mcpkit --help")\n`;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(
  argv: readonly string[],
  io: Io,
  ctx: CliContext = { cwd: process.cwd(), home: homedir(), env: process.env },
  options: MainOptions = {},
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(usageLine((error as Error).message));
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
    io.stderr(usageLine(`unknown command "${command}"`));
    return 2;
  }
  let timeoutMs: number;
  let loginTimeoutMs: number;
  try {
    timeoutMs = values.timeout === undefined ? 60_000 : parseMsFlag(values.timeout, '--timeout');
    loginTimeoutMs =
      values['login-timeout'] === undefined
        ? loginDefaults.loginTimeoutMs
        : parseMsFlag(values['login-timeout'], '--login-timeout');
  } catch (error) {
    io.stderr(usageLine((error as Error).message));
    return 2;
  }
  const shutdown = options.shutdown ?? new Shutdown();
  const showSecrets = values['show-secrets'] ?? false;
  // Everything printed from here on is scrubbed of secrets and neutralized for a terminal.
  const out = new Output(io, {
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    sanitize: values.sanitize ?? false,
    showSecrets,
    muted: () => shutdown.signal.aborted,
  });
  const selection: ServerSelection = {
    config: values.config,
    strict: values['strict-config'] ?? false,
  };
  try {
    switch (command) {
      case 'list':
        // It redacts the entries it prints and scrubs its own lines.
        return await listCommand(out, ctx, selection, { json: values.json ?? false, showSecrets });
      case 'add':
        return await addCommand(out, ctx, rest, values);
      case 'add-json':
        return await addJsonCommand(out, ctx, rest, values.scope);
      case 'remove':
        return await removeCommand(out, ctx, rest, values.scope);
      case 'approve':
      case 'reject':
      case 'reset-project-choices':
        return await approvalCommand(out, ctx, selection, command, rest, values.all ?? false);
      case 'import':
        return await importCommand(out, ctx, rest, {
          from: values.from,
          scope: values.scope,
          dryRun: values['dry-run'],
        });
    }
    const resolved = await resolveServers(ctx, selection);
    out.scrubber.addServers(secretHolders(resolved));
    for (const line of problems(resolved)) out.stderr(`mcpkit: ${line}\n`);
    if (command === 'login' || command === 'logout')
      return await authCommand(out, ctx, resolved, command, rest, {
        noBrowser: values['no-browser'] ?? false,
        loginTimeoutMs,
        shutdown,
      });
    const run = new Runner(
      out,
      { json: values.json ?? false, timeoutMs, verbose: values.verbose ?? false },
      resolved,
      ctx,
      shutdown,
    );
    const signal = run.signal;
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
            (c) => c.listTools({ signal }),
            (t) => [t.name, t.description ?? ''],
          ),
        );
      case 'resources':
        return Math.max(
          failedConfig,
          await run.list(
            'resources',
            values.server,
            (c) => c.listResources({ signal }),
            (r) => [r.uri, r.name],
          ),
        );
      case 'prompts':
        return Math.max(
          failedConfig,
          await run.list(
            'prompts',
            values.server,
            (c) => c.listPrompts({ signal }),
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
          const result = await client.callTool(
            { name: tool, ...(args ? { arguments: args } : {}) },
            { signal },
          );
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
          const result = await client.readResource(uri, { signal });
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
          const result = await client.getPrompt(name, args as Record<string, string> | undefined, {
            signal,
          });
          return { output: result, text: formatPrompt(result), failed: false };
        });
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (shutdown.signal.aborted) return (shutdown.signal.reason as InterruptedError).exitCode;
    if (error instanceof UsageError) {
      out.stderr(usageLine(error.message));
      return 2;
    }
    if (error instanceof ConfigWriteError) {
      out.stderr(`mcpkit: ${error.message}\n`);
      return 1;
    }
    out.stderr(`mcpkit: ${(error as Error).message}\n`);
    return 1;
  }
}

/** Every entry the config holds, shadowed ones too: each one's secrets are hidden. */
function secretHolders(resolved: Awaited<ReturnType<typeof resolveServers>>) {
  return [...resolved.servers, ...resolved.dropped];
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
      'login-timeout': { type: 'string' },
      sanitize: { type: 'boolean' },
      'show-secrets': { type: 'boolean' },
      verbose: { type: 'boolean', short: 'v' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      'no-browser': { type: 'boolean' },
    },
  });
}

function need(rest: string[], count: number, usage: string): [string, string, string | undefined] {
  if (rest.length < count || rest.length > count + 1)
    throw new UsageError(`usage: mcpkit ${usage}`);
  return [rest[0]!, rest[1]!, rest[2]];
}

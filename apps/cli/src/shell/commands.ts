import type { LoadResult } from '@mcpkit/config';
import { RpcError } from '@mcpkit/jsonrpc';
import type { McpManager } from '@mcpkit/manager';
import { counted, serverError, stringPairs } from '../commands/server-command-run.js';
import { gatewayRefusal } from '../core/advice.js';
import { isPairs, noArguments, typedPairs } from '../core/call-arguments.js';
import { checkArguments } from '../core/check-arguments.js';
import { type CliContext, resolveServers, type ServerSelection } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import type { ProgressLine } from '../terminal/call-progress.js';
import { formatPrompt, formatResource, formatToolResult } from '../terminal/format.js';
import { neutralize } from '../terminal/neutralize.js';
import type { Output } from '../terminal/output.js';
import { serversTable, type TableRow } from '../terminal/servers-table.js';
import { toolLines } from '../terminal/signature.js';
import type { ShellNames } from './completer.js';

export interface ShellOptions {
  /** `--timeout`: each request's timeout. */
  timeoutMs: number;
  noBrowser: boolean;
  loginTimeoutMs: number;
}

/** What every shell command works on; `resolved` is replaced when enable/disable change the config. */
export interface ShellState {
  out: Output;
  ctx: CliContext;
  selection: ServerSelection;
  shutdown: Shutdown;
  manager: McpManager;
  resolved: LoadResult;
  names: ShellNames;
  options: ShellOptions;
  /** A terminal's line for a call's progress (none from a pipe: no progress token sent). */
  progress?: ProgressLine;
  /** The terminal's width now (undefined into a pipe: lines are whole). */
  columns?: () => number | undefined;
}

export const SHELL_HELP = `commands (Tab completes commands, servers, tools, prompts and resources):
  servers                                  every server's state
  tools [server]                           the tools of every server, or of one
  call <server> <tool> [json | key=value...]   call a tool (or: call <host name> [...]);
                                           its arguments are checked against the tool's
                                           schema first (call --no-check … sends them as typed)
  read <server> <uri>                      read a resource
  prompt <server> <name> [json | key=value...]   get a prompt
  reconnect <server>                       drop the connection and connect again
  enable <server> | disable <server>       persisted in the entry's own file, applied now
  login <server>                           sign in to a remote server (OAuth)
  help                                     this text
  exit                                     close every server and leave (or Ctrl-D)
Ctrl-C cancels the running command.
`;

/** A line that cannot be run as typed: said in one line, with `help` to read more. */
export class ShellUsageError extends Error {}

/** `n` words from the front of `text`, and the rest of it as typed (JSON keeps its spaces). */
export function splitWords(text: string, n: number): { words: string[]; rest: string } {
  const words: string[] = [];
  let rest = text.trim();
  while (words.length < n && rest !== '') {
    const match = /^(\S+)\s*/.exec(rest)!;
    words.push(match[1]!);
    rest = rest.slice(match[0].length);
  }
  return { words, rest };
}

function jsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ShellUsageError(`${what} must be a JSON object: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ShellUsageError(`${what} must be a JSON object, like {"a": 1}`);
  return value as Record<string, unknown>;
}

function knownServer(s: ShellState, name: string | undefined, usage: string): string {
  if (!name) throw new ShellUsageError(`usage: ${usage}`);
  if (!s.resolved.servers.some((e) => e.name === name))
    throw new ShellUsageError(`no server named "${name}"; "servers" lists them`);
  return name;
}

/** A server the session runs (a known one the config does not start says why). */
function runningServer(s: ShellState, name: string | undefined, usage: string): string {
  const server = knownServer(s, name, usage);
  if (!s.manager.state(server)) throw new Error(notRunning(s, server));
  return server;
}

/** Runs one line; `signal` is aborted by Ctrl-C (this command only) or by a shutdown. */
export async function runShellLine(
  s: ShellState,
  line: string,
  signal: AbortSignal,
): Promise<void> {
  const { words, rest } = splitWords(line, 1);
  const command = words[0];
  if (!command) return;
  const call = { signal, timeoutMs: s.options.timeoutMs };
  const { out, manager } = s;
  switch (command) {
    case 'help':
      out.stdout(SHELL_HELP);
      return;
    case 'servers': {
      const counts = new Map<string, number>();
      for (const t of s.names.tools) counts.set(t.server, (counts.get(t.server) ?? 0) + 1);
      const states = manager.snapshot().servers;
      const rows: TableRow[] = s.resolved.servers.map((entry) => {
        const state = states.find((st) => st.name === entry.name);
        return state ? { entry, state, tools: counts.get(entry.name) } : { entry };
      });
      // Reasons are the CLI's words and may quote a configured URL.
      out.stdout(out.redact(serversTable(rows).text));
      return;
    }
    case 'tools': {
      const filter = rest === '' ? undefined : knownServer(s, rest, 'tools [server]');
      const tools = (await manager.tools({ signal })).filter(
        (t) => !t.pseudo && (!filter || t.server === filter),
      );
      const servers = [...new Set(tools.map((t) => t.server))].sort();
      for (const server of servers) {
        const own = tools.filter((t) => t.server === server);
        out.stdout(`${neutralize(server)} (${counted(own.length, 'tools')})\n`);
        // Each tool's signature and its description's first line, as `mcpkit tools` shows them.
        const lines = toolLines(
          own.map((t) => ({
            name: t.tool,
            description: t.description,
            inputSchema: t.inputSchema,
          })),
          s.columns?.(),
        );
        out.stdout(`${lines}\n`);
      }
      if (servers.length === 0) out.stdout('no tools (is a server still connecting? "servers")\n');
      return;
    }
    case 'call': {
      // `call --no-check …`: the arguments go to the server unchecked (one-shot `--no-check`).
      const noCheck = /^--no-check(\s|$)/.test(rest);
      const callRest = noCheck ? rest.replace(/^--no-check\s*/, '') : rest;
      let { words: head, rest: args } = splitWords(callRest, 2);
      let [server, tool] = head;
      // `call mcp__server__tool …`: a host name stands for the pair.
      const byHostName = server ? manager.resolveToolName(server) : undefined;
      if (byHostName && (!tool || !s.resolved.servers.some((e) => e.name === server))) {
        ({ server, tool } = byHostName);
        ({ rest: args } = splitWords(callRest, 1));
      }
      const usage = 'call <server> <tool> [json | key=value...]';
      runningServer(s, server, usage);
      if (!tool) throw new ShellUsageError(`usage: ${usage}`);
      const listed = s.names.tools.find((t) => t.server === server && t.tool === tool);
      let input: Record<string, unknown> | undefined;
      if (args.startsWith('{')) input = jsonObject(args, 'tool arguments');
      else if (args !== '') {
        const pairs = args.split(/\s+/);
        if (!isPairs(pairs)) throw new ShellUsageError(`usage: ${usage}`);
        const schema = (await manager.tools({ signal })).find(
          (t) => t.server === server && t.tool === tool,
        )?.inputSchema as { properties?: Record<string, { type?: string }> } | undefined;
        input = typedPairs(pairs, schema);
      } else
        input = noArguments(
          (await manager.tools({ signal }).catch(() => [])).find(
            (t) => t.server === server && t.tool === tool,
          )?.inputSchema,
        );
      // Checked against the tool's input schema before anything is sent, as one-shot `call`.
      const schema = noCheck
        ? undefined
        : (await manager.serverTools(server!, { signal }).catch(() => [])).find(
            (t) => t.name === tool,
          )?.inputSchema;
      if (schema !== undefined) {
        try {
          await checkArguments(server!, tool, schema, input, '"call --no-check …"');
        } catch (error) {
          throw new ShellUsageError((error as Error).message);
        }
      }
      const client = await manager.client(server!, call);
      let result: Awaited<ReturnType<typeof client.callTool>>;
      const ticket = s.progress?.start(`${server} ${tool}`);
      try {
        result = await client.callTool(
          { name: tool, ...(input ? { arguments: input } : {}) },
          ticket ? { ...call, onprogress: ticket.onprogress } : call,
        );
      } catch (error) {
        // A gateway's refusal is that, even of a tool it leaves out of this caller's list.
        const refused = RpcError.isInstance(error)
          ? gatewayRefusal(server!, tool, error)
          : undefined;
        if (refused !== undefined) throw new Error(refused, { cause: error });
        if (!listed && !signal.aborted)
          throw new Error(
            `server "${server}" has no tool "${tool}" (it said: ${(error as Error).message.split('\n')[0]}); "tools ${server}" lists its tools`,
          );
        throw error;
      } finally {
        ticket?.stop();
      }
      out.result(`${formatToolResult(result, { terminal: out.terminal })}\n`);
      if (result.isError === true) out.stdout(`(the tool reported an error)\n`);
      return;
    }
    case 'read': {
      const { words: head } = splitWords(rest, 2);
      const server = runningServer(s, head[0], 'read <server> <uri>');
      if (!head[1]) throw new ShellUsageError('usage: read <server> <uri>');
      const result = await (await manager.client(server, call)).readResource(head[1], call);
      out.result(`${formatResource(result)}\n`);
      return;
    }
    case 'prompt': {
      const { words: head, rest: json } = splitWords(rest, 2);
      const usage = 'prompt <server> <name> [json | key=value...]';
      const server = runningServer(s, head[0], usage);
      if (!head[1]) throw new ShellUsageError(`usage: ${usage}`);
      // A JSON object or key=value pairs, as `call` takes them.
      const pairs = json === '' || json.startsWith('{') ? undefined : json.split(/\s+/);
      if (pairs && !isPairs(pairs)) throw new ShellUsageError(`usage: ${usage}`);
      const args = pairs
        ? stringPairs(pairs)
        : json === ''
          ? undefined
          : jsonObject(json, 'prompt arguments');
      for (const [k, v] of Object.entries(args ?? {}))
        if (typeof v !== 'string')
          throw new ShellUsageError(`prompt argument "${k}" must be a string`);
      const result = await (await manager.client(server, call)).getPrompt(
        head[1],
        args as Record<string, string> | undefined,
        call,
      );
      out.result(`${formatPrompt(result)}\n`);
      return;
    }
    case 'reconnect': {
      const server = runningServer(s, rest, 'reconnect <server>');
      await manager.reconnect(server);
      return;
    }
    case 'enable':
    case 'disable':
      await toggle(s, command, knownServer(s, rest, `${command} <server>`));
      return;
    case 'login': {
      const server = knownServer(s, rest, 'login <server>');
      const { authCommand } = await import('../commands/login.js');
      await authCommand(s.out, s.ctx, s.resolved, 'login', [server], {
        noBrowser: s.options.noBrowser,
        loginTimeoutMs: s.options.loginTimeoutMs,
        shutdown: s.shutdown,
      });
      if (manager.state(server)) await manager.reconnect(server);
      return;
    }
    default:
      throw new ShellUsageError(`unknown command "${command}"`);
  }
}

function notRunning(s: ShellState, server: string): string {
  const entry = s.resolved.servers.find((e) => e.name === server);
  return `server "${server}" is not started (${entry?.status ?? 'unknown'}); "servers" says why`;
}

/**
 * enable/disable: written to the entry's own file (as `mcpkit enable` does), then the
 * config is read again and the manager given the new set, so the change applies now. An
 * entry from a file mcpkit does not write (a `--config`) is held for this session only.
 */
async function toggle(s: ShellState, command: 'enable' | 'disable', server: string): Promise<void> {
  const { enableCommand } = await import('../commands/enable.js');
  try {
    await enableCommand(s.out, s.ctx, s.selection, command, [server]);
  } catch (error) {
    if (!s.manager.state(server)) throw error;
    if (command === 'disable') await s.manager.disable(server);
    else await s.manager.enable(server);
    s.out.stdout(
      s.out.redact(`${command}d "${server}" for this session only: ${(error as Error).message}\n`),
    );
    return;
  }
  s.resolved = await resolveServers(s.ctx, s.selection);
  await s.manager.reload(s.resolved.servers.filter((e) => e.status === 'enabled'));
}

/** A failed command in the CLI's words: the server's name, the cause, the next step. */
export function shellError(line: string, error: Error): string {
  if (error instanceof ShellUsageError) return `${error.message} (see "help")`;
  const server = splitWords(line, 2).words[1];
  return server ? serverError(server, error) : error.message;
}

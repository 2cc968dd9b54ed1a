import { UrlElicitationRequiredError } from '@mcpkit/client';
import { RpcError } from '@mcpkit/jsonrpc';
import type { McpManager, ServerState } from '@mcpkit/manager';
import { gatewayRefusal } from '../core/advice.js';
import { isPairs, noArguments, readStdinJson, typedPairs } from '../core/call-arguments.js';
import { checkArguments } from '../core/check-arguments.js';
import { UsageError } from '../core/io.js';
import {
  type CliContext,
  problems,
  resolveServers,
  type ServerSelection,
} from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import { didYouMean } from '../core/suggest.js';
import type { ProgressLine } from '../terminal/call-progress.js';
import { formatPrompt, formatResource, formatToolResult } from '../terminal/format.js';
import type { Output } from '../terminal/output.js';
import { parameterLines, signature, toolLines } from '../terminal/signature.js';
import {
  ServerCommandRun,
  type ServerCommandRunOptions,
  stringPairs,
} from './server-command-run.js';

export interface ServerCommandOptions extends Omit<ServerCommandRunOptions, 'progress'> {
  showSecrets: boolean;
  /** `call <server> <tool> --help`: the tool's parameters, no call. */
  describe?: boolean;
  /** `--no-check`: the call's arguments are sent unchecked. */
  noCheck?: boolean;
  /** The terminal's width (stdout is a terminal), for the `tools` listing. */
  columns?: number;
  server: string[] | undefined;
  noBrowser: boolean;
  loginTimeoutMs: number;
  /** Makes the live progress (a terminal only), once the config is read. */
  progress?: () => Promise<ServerCommandRunOptions['progress']>;
  /** A terminal's line for a call's progress notifications (none: no progress token sent). */
  callProgress?: ProgressLine;
}

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

const LISTINGS = new Set(['servers', 'tools', 'resources', 'prompts']);

/**
 * The commands that use servers: the config is resolved, its problems said on stderr,
 * then one manager connects what the command needs.
 */
export async function serverCommand(
  command: string,
  rest: string[],
  out: Output,
  ctx: CliContext,
  selection: ServerSelection,
  shutdown: Shutdown,
  options: ServerCommandOptions,
): Promise<number> {
  // A listing's positionals name servers, as -s does ("mcpkit tools corp"): before, they
  // were ignored and every server was listed.
  const named =
    rest.length > 0 && LISTINGS.has(command)
      ? [...(options.server ?? []), ...rest]
      : options.server;
  const resolved = await resolveServers(ctx, selection);
  for (const line of problems(resolved)) out.stderr(`mcpkit: ${line}\n`);
  if (command === 'login' || command === 'logout') {
    const { authCommand } = await import('./login.js');
    return await authCommand(out, ctx, resolved, command, rest, {
      noBrowser: options.noBrowser,
      loginTimeoutMs: options.loginTimeoutMs,
      shutdown,
    });
  }
  const progress = await options.progress?.();
  const run = new ServerCommandRun(
    out,
    {
      json: options.json,
      timeoutMs: options.timeoutMs,
      ...(options.maxMessageBytes !== undefined
        ? { maxMessageBytes: options.maxMessageBytes }
        : {}),
      verbose: options.verbose,
      ...(progress ? { progress } : {}),
      ...(options.handlers ? { handlers: options.handlers } : {}),
      ...(options.trace ? { trace: options.trace } : {}),
    },
    resolved,
    ctx,
    shutdown,
  );
  const signal = run.signal;
  const failedConfig = resolved.errors.length > 0 ? 1 : 0;
  switch (command) {
    case 'get': {
      const { getCommand } = await import('./get.js');
      return Math.max(
        failedConfig,
        await getCommand(out, resolved, run, rest, {
          json: options.json,
          showSecrets: options.showSecrets,
        }),
      );
    }
    case 'servers':
      return Math.max(failedConfig, await run.servers(named));
    case 'tools':
      return Math.max(
        failedConfig,
        await run.list(
          'tools',
          named,
          async (_c, manager, server) => {
            // The manager's list (fetched once, at connect), in the server's order, each
            // tool with the name a host (an agent) would call it by.
            const hostNames = new Map(
              (await manager.tools({ signal }))
                .filter((t) => t.server === server)
                .map((t) => [t.tool, t.name]),
            );
            return (await manager.serverTools(server, { signal })).map((t) => ({
              ...t,
              hostName: hostNames.get(t.name),
            }));
          },
          (t) => [t.name, t.description ?? ''],
          (tools) => toolLines(tools, options.columns),
        ),
      );
    case 'resources':
      return Math.max(
        failedConfig,
        await run.list(
          'resources',
          named,
          (c) => c.listResources(run.call),
          (r) => [r.uri, r.name],
        ),
      );
    case 'prompts':
      return Math.max(
        failedConfig,
        await run.list(
          'prompts',
          named,
          (c) => c.listPrompts(run.call),
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
      const [server, tool, ...words] = rest;
      if (!server || !tool)
        throw new UsageError('usage: mcpkit call <server> <tool> [json-args | - | key=value...]');
      if (options.describe)
        return await run.one(server, ['tools'], async (_client, manager) => {
          const found = (await manager.serverTools(server, { signal })).find(
            (t) => t.name === tool,
          );
          if (!found) throw await noSuchTool(manager, server, tool);
          return {
            output: found,
            text: toolHelp(server, found),
            failed: false,
          };
        });
      const pairs = isPairs(words);
      if (!pairs && words.length > 1)
        throw new UsageError('usage: mcpkit call <server> <tool> [json-args | - | key=value...]');
      let args =
        words[0] === '-'
          ? await readStdinJson()
          : pairs
            ? undefined
            : parseJsonArgument(words[0], 'tool arguments');
      return await run.one(server, ['tools'], async (client, manager) => {
        if (pairs) {
          // key=value pairs are typed from the tool's input schema.
          const schema = (await manager.tools({ signal })).find(
            (t) => t.server === server && t.tool === tool,
          )?.inputSchema as { properties?: Record<string, { type?: string }> } | undefined;
          args = typedPairs(words, schema);
        }
        // "Has no tool" only when the server's list (when it came) lacks the tool, or the
        // server itself says it has no such tool; any other failure is the server's own
        // error, named as such. Looked up before the call: a server that dies during it
        // has no list after.
        let listedTool: { inputSchema?: unknown } | undefined;
        const listed = await manager
          .serverTools(server, { signal })
          .then((tools) => {
            listedTool = tools.find((t) => t.name === tool);
            return listedTool !== undefined || leftOut(manager.state(server), tool);
          })
          .catch(() => undefined);
        // With no arguments, `{}` when the input schema is an object: servers that validate
        // their input refuse a call without arguments.
        args ??= noArguments(listedTool?.inputSchema);
        // Checked against the tool's input schema before anything is sent (--no-check: not).
        if (listedTool && !options.noCheck)
          await checkArguments(server, tool, listedTool.inputSchema, args);
        const unknown = async (said: string, error?: unknown) =>
          listed === false || saysUnknownTool(said, error)
            ? new Error(
                `server "${server}" has no tool "${tool}"${await nearTools(manager, server, tool)} (it said: ${said.split('\n')[0]}); see "mcpkit tools -s ${server}" for the tools it has`,
              )
            : undefined;
        // On a terminal the call asks for progress (a progress token) and shows it on one
        // line, erased before the result is printed.
        const ticket = options.callProgress?.start(`${server} ${tool}`);
        const send = () =>
          client.callTool(
            { name: tool, ...(args ? { arguments: args } : {}) },
            ticket ? { ...run.call, onprogress: ticket.onprogress } : run.call,
          );
        let result: Awaited<ReturnType<typeof client.callTool>>;
        try {
          result = await send().catch(async (error: unknown) => {
            // -32042: the user must finish a page first; once they did, the call is sent
            // once more (the manager's rule for its own callTool).
            const pages = handlersOf(options.handlers, server)?.urlElicitation;
            if (!pages || !UrlElicitationRequiredError.isInstance(error)) throw error;
            await pages(server, error.elicitations, { signal });
            return send().catch((again: unknown) => {
              if (!UrlElicitationRequiredError.isInstance(again)) throw again;
              throw new Error(
                `server "${server}" still asks for a page to be finished after the call was sent again (${again.message}); check the page, then run the command again`,
              );
            });
          });
        } catch (error) {
          // A gateway's refusal (its code and data say so) is that, even for a tool the
          // gateway leaves out of this caller's list.
          const refused = gatewayRefusalError(server, tool, error);
          if (refused) throw refused;
          throw (await unknown((error as Error).message, error)) ?? toolFailed(server, tool, error);
        } finally {
          ticket?.stop();
        }
        if (result.isError === true) {
          const missing = await unknown(formatToolResult(result));
          if (missing) throw missing;
        }
        return {
          output: result,
          text: formatToolResult(result, { terminal: out.terminal }),
          failed: result.isError === true,
        };
      });
    }
    case 'read': {
      const [server, uri] = need(rest, 2, 'read <server> <uri>');
      return await run.one(server, [], async (client) => {
        const result = await client.readResource(uri, run.call);
        return { output: result, text: formatResource(result), failed: false };
      });
    }
    case 'prompt': {
      // A JSON object or key=value pairs, as `call` takes them (a prompt's are strings).
      const [server, name, ...words] = rest;
      const usage = 'usage: mcpkit prompt <server> <name> [json-args | key=value...]';
      if (!server || !name) throw new UsageError(usage);
      const pairs = isPairs(words);
      if (!pairs && words.length > 1) throw new UsageError(usage);
      const args = pairs ? stringPairs(words) : parseJsonArgument(words[0], 'prompt arguments');
      for (const [k, v] of Object.entries(args ?? {})) {
        if (typeof v !== 'string') throw new UsageError(`prompt argument "${k}" must be a string`);
      }
      return await run.one(server, [], async (client) => {
        const result = await client.getPrompt(
          name,
          args as Record<string, string> | undefined,
          run.call,
        );
        return { output: result, text: formatPrompt(result), failed: false };
      });
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/**
 * The server says it has no such tool: the spec's -32602 for an unknown tool, or a tool
 * error whose text says so. Matched on the server's words only together with that code,
 * or in an `isError` result (no code at all).
 */
function saysUnknownTool(said: string, error: unknown): boolean {
  const words = /\bunknown tool\b|\bno such tool\b|\btool\b[^\n]{0,120}\bnot found\b/i;
  if (error === undefined) return words.test(said);
  return RpcError.isInstance(error) && error.rpcCode === -32602 && words.test(error.rpcMessage);
}

/** The server lists the tool, but the client left it out (its schema did not fit). */
function leftOut(state: ServerState | undefined, tool: string): boolean {
  return (
    state?.state === 'connected' &&
    (state.toolIssues ?? []).some((i) => i.tool === tool && i.action === 'dropped')
  );
}

/** A gateway's refusal of the call (`-32040`/`-32041` with its data), worded; else `undefined`. */
function gatewayRefusalError(server: string, tool: string, error: unknown): Error | undefined {
  if (!RpcError.isInstance(error)) return undefined;
  const refused = gatewayRefusal(server, tool, error);
  return refused === undefined ? undefined : new Error(refused, { cause: error });
}

/** A call the server answered with a JSON-RPC error: the server's own error, named as such. */
function toolFailed(server: string, tool: string, error: unknown): unknown {
  if (!RpcError.isInstance(error)) return error;
  return new Error(
    `server "${server}": its tool "${tool}" failed with the server's own error ${error.rpcCode}: ${error.rpcMessage}`,
    { cause: error },
  );
}

function handlersOf(handlers: ServerCommandOptions['handlers'], server: string) {
  return typeof handlers === 'function' ? handlers(server) : handlers;
}

function need(rest: string[], count: number, usage: string): [string, string, string | undefined] {
  if (rest.length < count || rest.length > count + 1)
    throw new UsageError(`usage: mcpkit ${usage}`);
  return [rest[0]!, rest[1]!, rest[2]];
}

/** ` — did you mean "get-sum"?` from the tools the server listed, or `''`. */
async function nearTools(manager: McpManager, server: string, tool: string): Promise<string> {
  const tools = await manager.serverTools(server).catch(() => []);
  return didYouMean(
    tool,
    tools.map((t) => t.name),
  );
}

async function noSuchTool(manager: McpManager, server: string, tool: string): Promise<Error> {
  return new Error(
    `server "${server}" has no tool "${tool}"${await nearTools(manager, server, tool)}; see "mcpkit tools -s ${server}" for the tools it has`,
  );
}

/** `call <server> <tool> --help`: the tool's signature, description and parameters. */
function toolHelp(
  server: string,
  tool: { name: string; description?: string; inputSchema?: unknown },
): string {
  const description = (tool.description ?? '').trim();
  return [
    `mcpkit call ${server} ${signature(tool.name, tool.inputSchema)}`,
    ...(description ? ['', description] : []),
    '',
    'Parameters:',
    ...parameterLines(tool.inputSchema),
    '',
    `key=value pairs are typed from these (n=3 a number, on=true a boolean, arrays and objects as JSON); or give one JSON object, or - for one on stdin.`,
  ].join('\n');
}

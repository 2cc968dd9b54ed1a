import type { Tool } from '@mcpkit/protocol';
import { type HostToolUi, parseToolUi } from './apps.js';
import type { HostToolResult } from './normalize-result.js';
import { cut } from './text.js';

export interface HostToolCallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Time without progress before the call fails. Default `limits.toolTimeoutMs`. */
  timeoutMs?: number;
  /** Sent as the request's `params._meta` (the progress token is added beside it). */
  _meta?: Record<string, unknown>;
  /**
   * The server answered with a task (tasks extension, manager option `tasks`): told its id at
   * once. Persist it to get the result after a restart with `McpManager.resumeTask`.
   */
  ontask?: (task: { server: string; taskId: string }) => void;
}

/** One MCP tool, ready to hand to a model. */
export interface HostTool {
  /** `mcp__<server>__<tool>`: `^[A-Za-z0-9_-]{1,64}$`, stable across restarts. */
  readonly name: string;
  readonly server: string;
  /** The tool's name on its server. */
  readonly tool: string;
  /** Cut at 2,048 characters plus "… [truncated]". */
  readonly description: string;
  readonly inputSchema: object;
  readonly outputSchema?: object;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  readonly openWorld: boolean;
  /** Safe to run beside other calls: the tool says it is read-only. */
  readonly concurrencySafe: boolean;
  /** True for the `authenticate` pseudo-tool of a server that needs a sign-in. */
  readonly pseudo?: boolean;
  /** The tool's `_meta` as the server listed it. */
  readonly _meta?: Record<string, unknown>;
  /**
   * MCP Apps: the tool's `_meta.ui` parsed (the view's `ui://` URI, who may call it, the
   * CSP and permissions it declares); absent when the tool declares none.
   */
  readonly ui?: HostToolUi;
  call(args: Record<string, unknown>, options?: HostToolCallOptions): Promise<HostToolResult>;
}

export type ToolCaller = (
  server: string,
  tool: string,
  args: Record<string, unknown>,
  options: HostToolCallOptions | undefined,
) => Promise<HostToolResult>;

/** A host tool for a server's tool. Annotations are hints from the server, defaults per spec. */
export function makeHostTool(
  server: string,
  tool: Tool,
  name: string,
  descriptionChars: number,
  caller: ToolCaller,
): HostTool {
  const a = tool.annotations ?? {};
  const readOnly = a.readOnlyHint === true;
  const inputSchema =
    tool.inputSchema && typeof tool.inputSchema === 'object'
      ? (tool.inputSchema as object)
      : { type: 'object' };
  const meta =
    tool._meta && typeof tool._meta === 'object' && !Array.isArray(tool._meta)
      ? (tool._meta as Record<string, unknown>)
      : undefined;
  const ui = parseToolUi(meta);
  return Object.freeze({
    name,
    server,
    tool: tool.name,
    description: cut(tool.description ?? tool.title ?? a.title ?? '', descriptionChars),
    inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as object } : {}),
    readOnly,
    // The spec's defaults: a tool that is not read-only may be destructive and not idempotent.
    destructive: !readOnly && a.destructiveHint !== false,
    idempotent: a.idempotentHint === true,
    openWorld: a.openWorldHint !== false,
    concurrencySafe: readOnly,
    ...(meta ? { _meta: meta } : {}),
    ...(ui ? { ui } : {}),
    call: (args: Record<string, unknown>, options?: HostToolCallOptions) =>
      caller(server, tool.name, args, options),
  });
}

/**
 * What the `authenticate` tool of a server that needs a sign-in says and takes: its
 * description names the server, and its URL when `url` is given (a host on the user's own
 * machine may show it; a gateway serving other clients leaves it out), and it takes no
 * arguments.
 */
export function authenticateToolDefinition(
  server: string,
  options: { url?: string } = {},
): { description: string; inputSchema: Record<string, unknown> } {
  const { url } = options;
  return {
    description: `The MCP server "${server}"${url ? ` (${url})` : ''} needs you to sign in before its tools can be used. Call this to start the sign-in; its tools appear once it succeeds.`,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  };
}

/** The one tool a server that needs a sign-in shows: calling it runs the sign-in. */
export function makeAuthenticateTool(
  server: string,
  name: string,
  url: string,
  run: (options?: HostToolCallOptions) => Promise<HostToolResult>,
): HostTool {
  return Object.freeze({
    name,
    server,
    tool: 'authenticate',
    ...authenticateToolDefinition(server, { url }),
    readOnly: false,
    destructive: false,
    idempotent: true,
    openWorld: true,
    concurrencySafe: false,
    pseudo: true,
    call: (_args: Record<string, unknown>, options?: HostToolCallOptions) => run(options),
  });
}

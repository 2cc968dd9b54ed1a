import { toStandardSchema } from '@mastra/core/schema';
import { createTool, type Tool } from '@mastra/core/tools';
import { McpkitError } from '@mcpkit/jsonrpc';
import type { HostTool, HostToolResult } from '@mcpkit/manager';

/** What `MastraMcpClient` needs of a manager: `McpManager` and its `scope()` views fit. */
export interface ToolSource {
  tools(options?: { signal?: AbortSignal }): Promise<readonly HostTool[]>;
  /** When given (`McpManager` has it), `onListChanged` handlers follow the servers' lists. */
  on?(type: 'toolschange', listener: (event: { server: string }) => void): () => void;
}

export interface MastraMcpClientOptions {
  /** Keep only the tools this returns true for. Default: every tool. */
  filter?: (tool: HostTool) => boolean;
  /** Time without progress before a call fails. Default: the manager's `toolTimeoutMs`. */
  timeoutMs?: number;
  /**
   * An `isError` result: `"throw"` (default, as Mastra's MCPClient) throws `McpToolError`, so
   * the agent loop sends the model a tool error; `"return"` hands the result back as output.
   */
  onToolError?: 'throw' | 'return';
  /**
   * The keys of `listTools()`: `"mastra"` (default) `<server>_<tool>` as Mastra's MCPClient
   * names them; `"host"` the manager's `mcp__<server>__<tool>` (`^[A-Za-z0-9_-]{1,64}$`).
   */
  names?: 'mastra' | 'host';
}

/** A Mastra tool over one MCP tool; `execute` answers the manager's result. */
export type McpMastraTool = Tool<Record<string, unknown>, HostToolResult>;

/** An `isError` result, thrown from the tool so the agent loop sees a tool error. */
export class McpToolError extends McpkitError {
  static readonly brand: string = '@mcpkit/mastra.McpToolError';
  override readonly name: string = 'McpToolError';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly result: HostToolResult,
  ) {
    super(
      'MCPKIT_MASTRA_TOOL_RESULT',
      `MCP server "${server}": tool "${tool}" reported an error: ${result.text}`,
    );
  }
}

/** `ui.visibility` of an MCP Apps tool leaves out the model. */
function appOnly(tool: HostTool): boolean {
  return tool.ui !== undefined && !tool.ui.visibility.includes('model');
}

/**
 * The manager's tools in the shape of Mastra's own `MCPClient` (`@mastra/mcp`), so an agent
 * written for it takes this one instead: `listTools()` (one record, namespaced) for
 * `new Agent({ tools })`, `listToolsets()` (by server) for `agent.generate(…, { toolsets })`,
 * and `tools.onListChanged(server, handler)`. Every listing reads the manager's current
 * lists, so after a server's `list_changed` the next listing has the new tools. Closing the
 * manager is the host's (`disconnect()` only drops this client's listeners).
 */
export class MastraMcpClient {
  readonly #source: ToolSource;
  readonly #options: MastraMcpClientOptions;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(source: ToolSource, options: MastraMcpClientOptions = {}) {
    this.#source = source;
    this.#options = options;
  }

  /** Every model-facing tool, keyed `<server>_<tool>` (or the host name, with `names: "host"`). */
  async listTools(options: { signal?: AbortSignal } = {}): Promise<Record<string, McpMastraTool>> {
    const out: Record<string, McpMastraTool> = {};
    for (const hostTool of await this.#hostTools(options)) {
      const key =
        this.#options.names === 'host' ? hostTool.name : `${hostTool.server}_${hostTool.tool}`;
      out[key] = this.#toMastraTool(hostTool, key);
    }
    return out;
  }

  /** Every model-facing tool by server, keyed by the tool's own name on it. */
  async listToolsets(
    options: { signal?: AbortSignal } = {},
  ): Promise<Record<string, Record<string, McpMastraTool>>> {
    const out: Record<string, Record<string, McpMastraTool>> = {};
    for (const hostTool of await this.#hostTools(options)) {
      out[hostTool.server] ??= {};
      out[hostTool.server]![hostTool.tool] = this.#toMastraTool(hostTool, hostTool.tool);
    }
    return out;
  }

  /** As Mastra's MCPClient: `onListChanged(server, handler)` runs `handler` on each change. */
  get tools(): { onListChanged(server: string, handler: () => void): Promise<void> } {
    return {
      onListChanged: async (server, handler) => {
        const off = this.#source.on?.('toolschange', (event) => {
          if (event.server === server) handler();
        });
        if (off) this.#unsubscribe.push(off);
      },
    };
  }

  /** Drops the `onListChanged` handlers. The manager and its servers stay as they are. */
  async disconnect(): Promise<void> {
    for (const off of this.#unsubscribe.splice(0)) off();
  }

  async #hostTools(options: { signal?: AbortSignal }): Promise<HostTool[]> {
    const all = await this.#source.tools(options.signal ? { signal: options.signal } : undefined);
    const filter = this.#options.filter;
    return all.filter((t) => !appOnly(t) && (!filter || filter(t)));
  }

  #toMastraTool(hostTool: HostTool, id: string): McpMastraTool {
    const { timeoutMs, onToolError = 'throw' } = this.#options;
    // A tool with an output schema and no App view: the model gets its structured result.
    const structured = hostTool.outputSchema !== undefined && !hostTool.ui?.resourceUri;
    const annotations = {
      readOnlyHint: hostTool.readOnly,
      destructiveHint: hostTool.destructive,
      idempotentHint: hostTool.idempotent,
      openWorldHint: hostTool.openWorld,
    };
    return createTool({
      id,
      description: hostTool.description,
      inputSchema: toStandardSchema<Record<string, unknown>>(objectSchema(hostTool.inputSchema)),
      mcp: { annotations, ...(hostTool._meta ? { _meta: hostTool._meta } : {}) },
      mcpMetadata: { serverName: hostTool.server },
      // What the model reads: the manager's text (binary content as file references).
      toModelOutput: (output) => {
        // Not a result of ours: Mastra's own answer (arguments that broke the schema), as is.
        if (!isHostToolResult(output)) return { type: 'json', value: output ?? null };
        const result = output;
        return structured && !result.isError && result.structuredContent !== undefined
          ? { type: 'json', value: result.structuredContent }
          : { type: result.isError ? 'error-text' : 'text', value: result.text };
      },
      execute: async (input, context) => {
        const signal = context?.abortSignal;
        const result = await hostTool.call(input ?? {}, {
          ...(signal ? { signal } : {}),
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
        });
        if (result.isError && onToolError === 'throw')
          throw new McpToolError(hostTool.server, hostTool.tool, result);
        return result;
      },
    }) as McpMastraTool;
  }
}

function isHostToolResult(v: unknown): v is HostToolResult {
  const r = v as HostToolResult | null | undefined;
  return typeof r?.text === 'string' && Array.isArray(r.content) && typeof r.isError === 'boolean';
}

/** The server's JSON Schema, with `type: "object"` and `properties` filled in when missing. */
function objectSchema(schema: object): Record<string, unknown> {
  const s = schema as Record<string, unknown>;
  return { ...s, type: 'object', properties: s.properties ?? {} };
}

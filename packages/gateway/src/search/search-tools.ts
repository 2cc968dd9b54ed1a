import { RpcError, RpcErrorCode } from '@mcpkit/jsonrpc';
import type { HandlerContext, ResolvedTool, ToolDefinition, ToolHandler } from '@mcpkit/server';
import { ToolIndex } from './tool-index.js';

/**
 * Search mode (`GatewayOptions.toolSearch`): the gateway lists two tools instead of all —
 * one that searches the served tools, one that calls a found tool by its served name — for
 * clients that take only so many tools (Cursor 40, VS Code Copilot and the OpenAI API 128).
 */
export interface ToolSearchOptions {
  /** The search tool's name. `search_tools` by default. */
  searchToolName?: string;
  /** The call tool's name. `call_tool` by default. */
  callToolName?: string;
  /** Results when the client gives no `limit`. 5 by default. */
  defaultLimit?: number;
  /** The most results one search returns, whatever `limit` asks. 20 by default. */
  maxLimit?: number;
}

/** The longest query read, in characters; the rest is ignored. */
const MAX_QUERY_CHARS = 1000;

/** A served tool, as the search mode sees it. */
export interface CatalogTool extends ResolvedTool {
  /** Whether the model may see and call it (MCP Apps: `_meta.ui.visibility` names "model"). */
  forModel: boolean;
}

/**
 * Whether an MCP Apps tool is for the model: `_meta.ui.visibility` absent (both audiences,
 * the extension's default) or naming `"model"`. An app-only tool (`["app"]`) is called by its
 * App's view, never by the model.
 */
export function visibleToModel(meta: Record<string, unknown> | undefined): boolean {
  const visibility = (meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return !Array.isArray(visibility) || visibility.includes('model');
}

/** The two tools of search mode over the gateway's served tools (`update` after each sync). */
export class ToolSearch {
  readonly searchName: string;
  readonly callName: string;
  private readonly defaultLimit: number;
  private readonly maxLimit: number;
  private readonly index = new ToolIndex();
  private catalog: ReadonlyMap<string, CatalogTool> = new Map();
  private signature = '';

  constructor(
    options: ToolSearchOptions,
    private readonly describe: () => string,
    /** Whether this caller may see a served tool (the access policy); every tool when absent. */
    private readonly allowed?: (name: string, ctx: HandlerContext) => boolean,
  ) {
    this.searchName = options.searchToolName ?? 'search_tools';
    this.callName = options.callToolName ?? 'call_tool';
    if (this.searchName === this.callName)
      throw new TypeError(`toolSearch: the two tools need two names ("${this.searchName}")`);
    this.maxLimit = options.maxLimit ?? 20;
    this.defaultLimit = Math.min(options.defaultLimit ?? 5, this.maxLimit);
    if (!(this.defaultLimit >= 1)) throw new TypeError('toolSearch: limits must be at least 1');
  }

  /**
   * The tools searched and called from now on. The index is rebuilt (on the next search)
   * only when a tool searched for changed.
   */
  update(catalog: ReadonlyMap<string, CatalogTool>, keys: ReadonlyMap<string, string>): void {
    this.catalog = catalog;
    const visible = [...catalog].filter(([, tool]) => tool.forModel);
    const signature = JSON.stringify(visible.map(([name]) => [name, keys.get(name)]));
    if (signature === this.signature) return;
    this.signature = signature;
    this.index.replace(
      visible.map(([name, { definition }]) => ({
        name,
        ...(definition.title !== undefined ? { title: definition.title } : {}),
        ...(definition.description !== undefined ? { description: definition.description } : {}),
        ...(definition.inputSchema !== undefined ? { inputSchema: definition.inputSchema } : {}),
      })),
    );
  }

  /** The registrations of the two tools (their definitions never change). */
  tools(): Array<{ name: string; definition: ToolDefinition; handler: ToolHandler }> {
    return [
      { name: this.searchName, definition: this.searchDefinition(), handler: this.runSearch },
      { name: this.callName, definition: this.callDefinition(), handler: this.runCall },
    ];
  }

  private searchDefinition(): ToolDefinition {
    return {
      title: 'Search tools',
      description: `Finds the tools for a task among the ${this.describe()}. Returns the best matches, each with its name, description and input schema; call one with "${this.callName}".`,
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            description:
              'What you want to do, in a few words (e.g. "take a screenshot of the page").',
          },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: this.maxLimit,
            description: `How many tools to return (${this.defaultLimit} by default).`,
          },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    };
  }

  private callDefinition(): ToolDefinition {
    return {
      title: 'Call a tool',
      description: `Calls a tool found with "${this.searchName}", by its name, with its arguments (an object matching the tool's input schema). Returns the tool's own result.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            description: `The tool's name, as "${this.searchName}" gave it.`,
          },
          arguments: { type: 'object', description: "The tool's arguments." },
        },
        required: ['name'],
      },
    };
  }

  private readonly runSearch: ToolHandler = (args, ctx) => {
    const { query, limit } = args;
    if (typeof query !== 'string')
      throw new RpcError(
        RpcErrorCode.InvalidParams,
        `${this.searchName}: "query" must be a string`,
      );
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1))
      throw new RpcError(
        RpcErrorCode.InvalidParams,
        `${this.searchName}: "limit" must be a whole number from 1`,
      );
    const count = Math.min(limit ?? this.defaultLimit, this.maxLimit);
    const text = query.slice(0, MAX_QUERY_CHARS);
    const allowed = this.allowed;
    // A tool this caller may not list is not found either: the best `count` of those it may.
    const hits = allowed
      ? this.index
          .search(text, this.catalog.size)
          .filter(({ name }) => allowed(name, ctx))
          .slice(0, count)
      : this.index.search(text, count);
    const found = hits.map(({ name }) => {
      const { definition } = this.catalog.get(name)!;
      return {
        name,
        ...(definition.title !== undefined ? { title: definition.title } : {}),
        ...(definition.description !== undefined ? { description: definition.description } : {}),
        inputSchema: definition.inputSchema ?? { type: 'object' },
        ...(definition.annotations !== undefined ? { annotations: definition.annotations } : {}),
      };
    });
    const result = { tools: found };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  };

  private readonly runCall: ToolHandler = (args, ctx) => {
    const { name, arguments: toolArgs = {} } = args;
    if (typeof name !== 'string')
      throw new RpcError(RpcErrorCode.InvalidParams, `${this.callName}: "name" must be a string`);
    if (typeof toolArgs !== 'object' || toolArgs === null || Array.isArray(toolArgs))
      throw new RpcError(
        RpcErrorCode.InvalidParams,
        `${this.callName}: "arguments" of tool "${name}" must be an object`,
      );
    const tool = this.catalog.get(name);
    if (!tool)
      throw new RpcError(RpcErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name)}`, {
        name,
      });
    // MCP Apps: a tool only for its App's view is never the model's (search results, calls).
    if (!tool.forModel)
      throw new RpcError(
        RpcErrorCode.InvalidParams,
        `${this.callName}: tool "${name}" is for its MCP App's view only (_meta.ui.visibility has no "model")`,
        { name },
      );
    // The same handler a listed tool has: the same forwarding, errors, progress, cancellation.
    return tool.handler(toolArgs as Record<string, unknown>, ctx);
  };
}

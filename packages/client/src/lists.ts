import type { JsonRpcMessage } from '@mcpkit/jsonrpc';
import { ClientMethod, invalidParamHeaders, type Tool, toolParamHeaders } from '@mcpkit/protocol';
import type { Connection } from './connection.js';
import { InvalidToolError } from './errors.js';
import { ListCache } from './list-cache.js';
import type { CallOptions, CallToolParams } from './options.js';
import { OutputSchemas } from './output-schema.js';
import { listAll } from './paginate.js';
import type { RequestPipeline } from './request-pipeline.js';
import type { SchemaName } from './result-checks.js';
import { screenTools, toolsPage } from './tool-screen.js';

/**
 * The server's tools, prompts, resources and templates, cached (see `cacheLists`), and what
 * the last tool list says about each tool: its input schema (the source of 2026-07-28
 * Mcp-Param headers), its output schema, and whether it runs only as a task.
 */
export class ServerLists {
  readonly cache = new ListCache();
  readonly outputSchemas = new OutputSchemas();
  /** Tools that run only as tasks (2025-11-25 `execution.taskSupport: "required"`). */
  readonly taskTools = new Set<string>();
  private readonly toolSchemas = new Map<string, unknown>();

  constructor(
    private readonly conn: Connection,
    private readonly pipeline: RequestPipeline,
    private readonly report: (error: Error) => void,
  ) {}

  async tools(options?: CallOptions): Promise<Tool[]> {
    const conn = this.conn;
    if (!conn.serverOffers('tools')) return [];
    const hit = this.cached<Tool>('tools', options);
    if (hit) return hit;
    const generation = this.cache.generation('tools');
    // Each page's envelope is checked as a whole, each tool on its own: one malformed tool
    // is repaired or left out (and reported), never the whole list.
    const { items, ttlMs } = await listAll<'tools', unknown>(
      conn,
      this.pipeline,
      ClientMethod.ListTools,
      'tools',
      'ListToolsResultSchema',
      toolsPage,
      options,
    );
    let tools: Tool[] = items as Tool[];
    if (conn.checks.enabled) {
      const screened = await screenTools(items);
      tools = screened.tools;
      for (const issue of screened.issues)
        this.report(new InvalidToolError(conn.label, issue.tool, issue.reason, issue.action));
    }
    if (conn.server?.era === 'modern') {
      // A tool whose x-mcp-header annotations are invalid cannot be called correctly.
      tools = tools.filter((tool) => {
        const reason = invalidParamHeaders(tool.inputSchema);
        if (reason === undefined) return true;
        this.report(new InvalidToolError(conn.label, tool.name, reason));
        return false;
      });
    }
    this.toolSchemas.clear();
    this.taskTools.clear();
    for (const tool of tools) {
      this.toolSchemas.set(tool.name, tool.inputSchema);
      if ((tool as { execution?: { taskSupport?: string } }).execution?.taskSupport === 'required')
        this.taskTools.add(tool.name);
    }
    this.outputSchemas.remember(tools);
    this.remember('tools', tools, ttlMs, generation);
    return tools;
  }

  /** Resources, templates or prompts: every page, or the cached list while fresh. */
  async list<K extends 'resources' | 'resourceTemplates' | 'prompts', T>(
    key: K,
    method: string,
    schemaName: SchemaName,
    options: CallOptions | undefined,
  ): Promise<T[]> {
    // A template list changes with the resource list.
    const feature = key === 'resourceTemplates' ? 'resources' : (key as 'resources' | 'prompts');
    if (!this.conn.serverOffers(feature)) return [];
    const hit = this.cached<T>(key, options);
    if (hit) return hit;
    const generation = this.cache.generation(key);
    const { items, ttlMs } = await listAll<K, T>(
      this.conn,
      this.pipeline,
      method,
      key,
      schemaName,
      undefined,
      options,
    );
    this.remember(key, items, ttlMs, generation);
    return items;
  }

  /** Mcp-Param-* headers of a `tools/call`, from the tool's input schema (2026-07-28 HTTP). */
  readonly paramHeaders = (message: JsonRpcMessage): Record<string, string> | undefined => {
    if (!('method' in message) || message.method !== ClientMethod.CallTool) return undefined;
    const params = message.params as CallToolParams | undefined;
    const schema = params && this.toolSchemas.get(params.name);
    if (schema === undefined) return undefined;
    try {
      return toolParamHeaders(schema, params!.arguments);
    } catch {
      return undefined;
    }
  };

  /** Cached items of a list, when still fresh. */
  private cached<T>(list: string, options: CallOptions | undefined): T[] | undefined {
    if (options?.fresh || this.conn.options.cacheLists === false) return undefined;
    return this.cache.get<T>(list);
  }

  /**
   * How long a fresh list stays valid: 2026-07-28, its `ttlMs`; legacy, until a
   * list_changed when the server promises to send one.
   */
  private remember(list: string, items: unknown[], ttlMs: number | undefined, generation: number) {
    const conn = this.conn;
    if (conn.options.cacheLists === false) return;
    let expires = 0;
    if (conn.server?.era === 'modern') {
      if (typeof ttlMs === 'number' && ttlMs > 0) expires = Date.now() + ttlMs;
    } else {
      const feature = list === 'resourceTemplates' ? 'resources' : list;
      const caps = conn.serverCapabilities?.[feature as 'tools'] as
        | { listChanged?: boolean }
        | undefined;
      if (caps?.listChanged === true) expires = Number.POSITIVE_INFINITY;
    }
    this.cache.set(list, items, expires, generation);
  }
}

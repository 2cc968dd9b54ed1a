import { McpkitError } from '@mcpkit/jsonrpc';
import type { HostTool, HostToolCallOptions, HostToolResult } from '@mcpkit/manager';
import type {
  CallToolResult,
  CallToolResultContent,
  MCPCallToolOptions,
  MCPServer,
  MCPToolFilterCallable,
  MCPToolFilterStatic,
  MCPToolMetaResolver,
} from '@openai/agents';
import { invalidateServerToolsCache } from '@openai/agents';

/** One tool as the SDK lists it (its `MCPTool`, not exported by `@openai/agents`). */
type MCPTool = Awaited<ReturnType<MCPServer['listTools']>>[number];

/** What the adapter needs of a manager. `McpManager` fits. */
export interface ManagerSource {
  tools(options?: { signal?: AbortSignal }): Promise<readonly HostTool[]>;
  serverTools(server: string, options?: { signal?: AbortSignal }): Promise<readonly unknown[]>;
  connect?(name: string): Promise<unknown>;
  on(type: 'toolschange', listener: (event: { server: string }) => void): () => void;
  snapshot(): { servers: readonly { name: string }[] };
}

export interface ManagedServerOptions {
  /** The Agents SDK's per-server tool filter (static names are host names, `mcp__server__tool`). */
  toolFilter?: MCPToolFilterCallable | MCPToolFilterStatic;
  /** Keep the tool list between runs; the manager's `list_changed` clears it. Default true. */
  cacheToolsList?: boolean;
  /** Time without progress before a call fails. Default: the manager's `toolTimeoutMs`. */
  timeoutMs?: number;
  /** The SDK's per-call `_meta` (sent to the server as the request's `params._meta`). */
  toolMetaResolver?: MCPToolMetaResolver;
}

/** The `_meta.ui.visibility` of an MCP Apps tool, when it says the model must not see it. */
export function isAppOnly(tool: unknown): boolean {
  const meta = (tool as { _meta?: unknown })?._meta;
  const ui = (meta as { ui?: unknown } | undefined)?.ui;
  const visibility = (ui as { visibility?: unknown } | undefined)?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}

/**
 * One managed server as an Agents SDK `MCPServer`: `new Agent({ mcpServers: [server] })`.
 * Its tools carry the manager's host names (`mcp__server__tool`, within the SDK's 64
 * characters and unique across servers); the manager starts, supervises and signs in the
 * server, so `connect()` and `close()` leave its lifecycle to the manager.
 */
export class ManagedMcpServer implements MCPServer {
  readonly name: string;
  cacheToolsList: boolean;
  toolFilter?: MCPToolFilterCallable | MCPToolFilterStatic;
  toolMetaResolver?: MCPToolMetaResolver;
  readonly #source: ManagerSource;
  readonly #timeoutMs: number | undefined;
  #cached: HostTool[] | undefined;
  #byName = new Map<string, HostTool>();
  #unsubscribe: (() => void) | undefined;

  constructor(source: ManagerSource, server: string, options: ManagedServerOptions = {}) {
    this.name = server;
    this.#source = source;
    this.cacheToolsList = options.cacheToolsList ?? true;
    this.#timeoutMs = options.timeoutMs;
    if (options.toolFilter) this.toolFilter = options.toolFilter;
    if (options.toolMetaResolver) this.toolMetaResolver = options.toolMetaResolver;
    // list_changed (and reconnects) reach the SDK's own cache too.
    this.#unsubscribe = source.on('toolschange', (event) => {
      if (event.server === this.name) void this.invalidateToolsCache();
    });
  }

  /** The manager connects (lazily or at `connectAll`); this waits for nothing more. */
  async connect(): Promise<void> {}

  /** Stops listening to the manager; the server itself stays the manager's. */
  async close(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  async invalidateToolsCache(): Promise<void> {
    this.#cached = undefined;
    await invalidateServerToolsCache(this.name);
  }

  async listTools(): Promise<MCPTool[]> {
    const tools = this.cacheToolsList && this.#cached ? this.#cached : await this.#fetch();
    return tools.map((t) => {
      const schema = t.inputSchema as Record<string, unknown>;
      return {
        name: t.name,
        description: t.description,
        inputSchema: {
          ...schema,
          type: 'object',
          properties: (schema.properties as Record<string, unknown>) ?? {},
          required: (schema.required as string[]) ?? [],
          additionalProperties: (schema.additionalProperties as boolean | undefined) ?? false,
        },
      } as MCPTool;
    });
  }

  async #fetch(): Promise<HostTool[]> {
    const [all, raw] = await Promise.all([
      this.#source.tools(),
      this.#source.serverTools(this.name).catch(() => []),
    ]);
    // MCP Apps: a tool whose visibility is only "app" is for the App's view, not the model.
    const appOnly = new Set(raw.filter(isAppOnly).map((t) => (t as { name: string }).name));
    const tools = all.filter((t) => t.server === this.name && !t.pseudo && !appOnly.has(t.tool));
    this.#byName = new Map(tools.map((t) => [t.name, t]));
    this.#cached = tools;
    return tools;
  }

  async callTool(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: MCPCallToolOptions,
  ): Promise<CallToolResultContent> {
    const result = await this.callToolResult(toolName, args, meta, options);
    return result.content as CallToolResultContent;
  }

  async callToolResult(
    toolName: string,
    args: Record<string, unknown> | null,
    meta?: Record<string, unknown> | null,
    options?: MCPCallToolOptions,
  ): Promise<CallToolResult> {
    let tool = this.#byName.get(toolName);
    if (!tool) {
      await this.#fetch();
      tool = this.#byName.get(toolName);
    }
    if (!tool) throw new UnknownManagedToolError(this.name, toolName);
    const callOptions: HostToolCallOptions = {
      ...(options?.signal ? { signal: options.signal } : {}),
      ...(this.#timeoutMs === undefined ? {} : { timeoutMs: this.#timeoutMs }),
      ...(meta ? { _meta: meta } : {}),
    };
    const result = await tool.call(args ?? {}, callOptions);
    return toCallToolResult(result);
  }
}

/** A tool name the model used that the managed server does not have (any more). */
export class UnknownManagedToolError extends McpkitError {
  static readonly brand: string = '@mcpkit/openai-agents.UnknownManagedToolError';
  override readonly name: string = 'UnknownManagedToolError';
  constructor(
    readonly server: string,
    readonly tool: string,
  ) {
    super('MCPKIT_OPENAI_AGENTS_UNKNOWN_TOOL', `MCP server "${server}" has no tool "${tool}"`);
  }
}

/** The manager's normalized result as the MCP shape the SDK reads (text, isError, structuredContent). */
function toCallToolResult(result: HostToolResult): CallToolResult {
  const content = result.content.map((c) =>
    c.type === 'text'
      ? { type: 'text', text: c.text }
      : {
          type: 'text',
          text:
            c.type === 'file'
              ? `[${c.kind} saved to ${c.path} (${c.mimeType}, ${c.bytes} bytes)]`
              : 'text' in c
                ? c.text
                : `[${c.type} ${c.uri}]`,
        },
  );
  return {
    content,
    isError: result.isError,
    ...(result.structuredContent === undefined
      ? {}
      : { structuredContent: result.structuredContent }),
    ...(result._meta ? { _meta: result._meta } : {}),
  } as unknown as CallToolResult;
}

/**
 * Every server of the manager (or the named ones) as an Agents SDK `MCPServer`:
 * `new Agent({ mcpServers: mcpServers(manager) })`.
 */
export function mcpServers(
  source: ManagerSource,
  options: ManagedServerOptions & { servers?: readonly string[] } = {},
): ManagedMcpServer[] {
  const names = options.servers ?? source.snapshot().servers.map((s) => s.name);
  return names.map((name) => new ManagedMcpServer(source, name, options));
}

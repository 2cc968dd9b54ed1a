import { DynamicStructuredTool } from '@langchain/core/tools';
import { McpkitError } from '@mcpkit/jsonrpc';
import type { HostContent, HostTool, HostToolResult } from '@mcpkit/manager';

/** What `createTools` needs of a manager: `McpManager` and its `scope()` views fit. */
export interface ToolSource {
  tools(options?: { signal?: AbortSignal }): Promise<readonly HostTool[]>;
  /** When given, tools whose `_meta.ui.visibility` leaves out "model" (MCP Apps) are left out. */
  serverTools?(server: string, options?: { signal?: AbortSignal }): Promise<readonly unknown[]>;
}

export interface CreateToolsOptions {
  signal?: AbortSignal;
  /** Keep only the tools this returns true for. Default: every tool. */
  filter?: (tool: HostTool) => boolean;
  /** Time without progress before a call fails. Default: the manager's `toolTimeoutMs`. */
  timeoutMs?: number;
}

/** The artifact of a call: what the application gets and the model does not. */
export interface McpArtifact {
  server: string;
  tool: string;
  structuredContent?: unknown;
  /** Binary content the manager wrote to files (images, audio, blobs). */
  files: HostToolResult['files'];
  /** Embedded resources, whole. */
  resources: Extract<HostContent, { type: 'resource' }>[];
  truncated: boolean;
}

/** An `isError` result: thrown from the tool, so the agent loop sees a tool error. */
export class McpToolError extends McpkitError {
  static readonly brand: string = '@mcpkit/langchain.McpToolError';
  override readonly name: string = 'McpToolError';
  constructor(
    readonly server: string,
    readonly tool: string,
    readonly result: HostToolResult,
  ) {
    super(
      'MCPKIT_LANGCHAIN_TOOL_RESULT',
      `MCP server "${server}": tool "${tool}" reported an error: ${result.text}`,
    );
  }
}

/** `_meta.ui.visibility` of an MCP Apps tool says the model must not see it. */
export function isAppOnly(tool: unknown): boolean {
  const ui = (tool as { _meta?: { ui?: { visibility?: unknown } } })?._meta?.ui;
  const visibility = ui?.visibility;
  return Array.isArray(visibility) && !visibility.includes('model');
}

/**
 * The manager's tools as LangChain structured tools, named `mcp__server__tool`. The input
 * schema is the server's JSON Schema as given (LangChain validates against it, no Zod
 * conversion). Each tool answers `[content, artifact]` (`responseFormat:
 * "content_and_artifact"`): the model reads the text and resource links; structured
 * content, files and embedded resources go to the artifact.
 */
export async function createTools(
  source: ToolSource,
  options: CreateToolsOptions = {},
): Promise<DynamicStructuredTool[]> {
  const listOptions = options.signal ? { signal: options.signal } : undefined;
  const all = await source.tools(listOptions);
  const appOnly = await appOnlyTools(source, all, listOptions);
  const out: DynamicStructuredTool[] = [];
  for (const hostTool of all) {
    if (appOnly.has(`${hostTool.server}\0${hostTool.tool}`)) continue;
    if (options.filter && !options.filter(hostTool)) continue;
    out.push(toLangChainTool(hostTool, options));
  }
  return out;
}

async function appOnlyTools(
  source: ToolSource,
  tools: readonly HostTool[],
  options: { signal?: AbortSignal } | undefined,
): Promise<Set<string>> {
  const found = new Set<string>();
  if (!source.serverTools) return found;
  for (const server of new Set(tools.map((t) => t.server))) {
    const raw = await source.serverTools(server, options).catch(() => []);
    for (const t of raw) if (isAppOnly(t)) found.add(`${server}\0${(t as { name: string }).name}`);
  }
  return found;
}

function objectSchema(schema: object): Record<string, unknown> {
  const s = schema as Record<string, unknown>;
  return { ...s, type: 'object', properties: s.properties ?? {} };
}

function toLangChainTool(hostTool: HostTool, options: CreateToolsOptions): DynamicStructuredTool {
  return new DynamicStructuredTool({
    name: hostTool.name,
    description: hostTool.description,
    schema: objectSchema(hostTool.inputSchema),
    responseFormat: 'content_and_artifact',
    metadata: { mcpServer: hostTool.server, mcpTool: hostTool.tool },
    func: async (input: Record<string, unknown>, _runManager, config) => {
      const signal = config?.signal;
      const timeoutMs = options.timeoutMs ?? config?.timeout;
      const result = await hostTool.call(input ?? {}, {
        ...(signal ? { signal } : {}),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      if (result.isError) throw new McpToolError(hostTool.server, hostTool.tool, result);
      return [modelText(result), artifact(hostTool, result)];
    },
  });
}

/** What the model reads: text blocks, file references and resource links, in order. */
function modelText(result: HostToolResult): string {
  const parts = result.content.flatMap((c) => {
    if (c.type === 'text') return [c.text];
    if (c.type === 'file')
      return [`[${c.kind} saved to ${c.path} (${c.mimeType}, ${c.bytes} bytes)]`];
    if (c.type === 'resource_link') return [`[resource ${c.name}: ${c.uri}]`];
    return [];
  });
  return parts.length > 0 ? parts.join('\n') : result.text;
}

function artifact(hostTool: HostTool, result: HostToolResult): McpArtifact {
  return {
    server: hostTool.server,
    tool: hostTool.tool,
    ...(result.structuredContent === undefined
      ? {}
      : { structuredContent: result.structuredContent }),
    files: result.files,
    resources: result.content.filter(
      (c): c is Extract<HostContent, { type: 'resource' }> => c.type === 'resource',
    ),
    truncated: result.truncated,
  };
}

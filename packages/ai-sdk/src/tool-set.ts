import { DEFAULT_MAX_JSON_DEPTH } from '@mcpkit/jsonrpc';
import { jsonValueDepth } from '@mcpkit/jsonrpc/internal';
import type { HostTool, HostToolResult } from '@mcpkit/manager';
import { jsonSchema, type Tool, tool } from 'ai';
import { ToolResultError } from './errors.js';
import { type InlineFilesOptions, toModelOutput } from './model-output.js';

/** What `createToolSet` needs of a manager: its host tools. `McpManager` and its `scope()` views fit. */
export interface ToolSource {
  tools(options?: { signal?: AbortSignal }): Promise<readonly HostTool[]>;
}

/** One progress notification of a running call, with the call it belongs to. */
export interface ToolProgressEvent {
  /** The AI SDK's id of the tool call. */
  toolCallId: string;
  /** The host tool name (`mcp__server__tool`), as the model called it. */
  toolName: string;
  server: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolSetOptions {
  /** Aborts the listing of tools (not the calls: those take the AI SDK's `abortSignal`). */
  signal?: AbortSignal;
  /** Keep only the tools this returns true for. Default: every tool. */
  filter?: (tool: HostTool) => boolean;
  /** Called for every progress notification of every call. */
  onProgress?: (event: ToolProgressEvent) => void;
  /** Time without progress before a call fails. Default: the manager's `toolTimeoutMs`. */
  timeoutMs?: number;
  /**
   * How a result with `isError: true` reaches the AI SDK:
   * - `'throw'` (default): `execute` throws a `ToolResultError`, so the step holds a
   *   `tool-error` part and the model gets the error text (the AI SDK's convention);
   * - `'result'`: `execute` returns the result, so the step holds a `tool-result` part
   *   whose `output.isError` is true, and the model gets the text as an `error-text` output.
   */
  errors?: 'throw' | 'result';
  /**
   * Binary content (images, audio, blobs) is written to files by the manager and stands in
   * the text as `[image saved to /path (image/png, N bytes)]`. `inlineFiles` sends files of
   * the given media types to the model as data instead, for models that accept them.
   */
  inlineFiles?: boolean | Partial<InlineFilesOptions>;
  /** Ask the host for approval before a call (the AI SDK's `needsApproval`). */
  needsApproval?: boolean | ((tool: HostTool) => boolean);
  /** Told of tools left out of the set, and why. */
  onWarning?: (message: string) => void;
}

export const toolSetDefaults = {
  errors: 'throw',
  inlineFiles: { mediaTypes: ['image/'], maxBytes: 5 * 1024 * 1024 },
} as const satisfies Pick<ToolSetOptions, 'errors'> & { inlineFiles: InlineFilesOptions };

/** The output of every tool in the set: the manager's normalized result. */
export type McpToolOutput = HostToolResult;
export type McpTool = Tool<Record<string, unknown>, McpToolOutput>;

/**
 * The manager's tools as an AI SDK tool set, keyed by host-safe name
 * (`mcp__server__tool`): pass it as `tools` to `generateText` / `streamText`.
 *
 * It is a snapshot of `tools()`: build it again for each generation (the manager caches
 * the lists) or on the manager's `toolschange` event.
 */
export async function createToolSet(
  source: ToolSource,
  options: ToolSetOptions = {},
): Promise<Record<string, McpTool>> {
  const inline = inlineOptions(options.inlineFiles);
  const set: Record<string, McpTool> = {};
  for (const hostTool of await source.tools(
    options.signal ? { signal: options.signal } : undefined,
  )) {
    // MCP Apps: a tool whose visibility leaves out "model" is for its server's views only
    // (`tools()` leaves them out already; another source may not).
    if (hostTool.ui && !hostTool.ui.visibility.includes('model')) continue;
    if (options.filter && !options.filter(hostTool)) continue;
    const schema = objectSchema(hostTool.inputSchema);
    if (schema === undefined) {
      // One malformed tool must not take the others down: leave it out and say so.
      options.onWarning?.(
        `MCP server "${hostTool.server}": tool "${hostTool.tool}" left out of the AI SDK tool set: its inputSchema is not a JSON Schema of type "object"; fix the server's tool definition`,
      );
      continue;
    }
    // The SDK and the providers walk a schema by recursion: one too deep is left out too.
    if (jsonValueDepth(schema, DEFAULT_MAX_JSON_DEPTH) > DEFAULT_MAX_JSON_DEPTH) {
      options.onWarning?.(
        `MCP server "${hostTool.server}": tool "${hostTool.tool}" left out of the AI SDK tool set: its inputSchema nests deeper than the ${DEFAULT_MAX_JSON_DEPTH}-level limit`,
      );
      continue;
    }
    set[hostTool.name] = toAiTool(
      hostTool,
      schema,
      outputSchemaOf(hostTool, options),
      options,
      inline,
    );
  }
  return set;
}

function toAiTool(
  hostTool: HostTool,
  schema: Record<string, unknown>,
  output: Record<string, unknown> | undefined,
  options: ToolSetOptions,
  inline: InlineFilesOptions | undefined,
): McpTool {
  const throwOnError = (options.errors ?? toolSetDefaults.errors) === 'throw';
  // A tool with an output schema and no view: its structured result is what the model gets
  // (as JSON). An App's structuredContent is for its view, so the model keeps the text.
  const structured = output !== undefined && !hostTool.ui?.resourceUri;
  const approval = options.needsApproval;
  return tool<Record<string, unknown>, McpToolOutput>({
    description: hostTool.description,
    // Not sent to the model: the SDK copies it onto the call's parts (`toolMetadata`), so a
    // UI can say which server a call went to without parsing the host name.
    metadata: {
      mcpServer: hostTool.server,
      mcpTool: hostTool.tool,
      // MCP Apps: the view a host renders the result in.
      ...(hostTool.ui?.resourceUri ? { mcpResourceUri: hostTool.ui.resourceUri } : {}),
    },
    // The server's schema as given; the server checks the arguments against it. Here only
    // the shape MCP requires: arguments are an object. Anything else is refused before a
    // byte is sent; the SDK reports it as invalid tool input, which the model can repair.
    inputSchema: jsonSchema<Record<string, unknown>>(schema, {
      validate: (value) =>
        isPlainObject(value)
          ? { success: true, value }
          : {
              success: false,
              error: new TypeError(
                `MCP server "${hostTool.server}": tool "${hostTool.tool}" takes its arguments as a JSON object, got ${describe(value)}; call it again with an object`,
              ),
            },
    }),
    // The output is the manager's result; its `structuredContent` follows the tool's schema.
    ...(output ? { outputSchema: jsonSchema<McpToolOutput>(output) } : {}),
    ...(approval === undefined
      ? {}
      : { needsApproval: typeof approval === 'function' ? approval(hostTool) : approval }),
    execute: async (input, { toolCallId, abortSignal }) => {
      const onProgress = options.onProgress;
      const result = await hostTool.call(input, {
        ...(abortSignal ? { signal: abortSignal } : {}),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(onProgress
          ? {
              onprogress: (p) =>
                onProgress({
                  toolCallId,
                  toolName: hostTool.name,
                  server: hostTool.server,
                  tool: hostTool.tool,
                  ...p,
                }),
            }
          : {}),
      });
      if (result.isError && throwOnError)
        throw new ToolResultError(hostTool.server, hostTool.tool, result);
      return result;
    },
    toModelOutput: ({ output: result }) =>
      toModelOutput(result, inline, result.isError, structured),
  } as McpTool);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** The schema when it describes an object (what every provider requires of tool input). */
function objectSchema(schema: unknown): Record<string, unknown> | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined && s.type !== 'object') return undefined;
  // Some providers reject an object schema without `properties`; MCP allows leaving it out.
  return { ...s, type: 'object', properties: s.properties ?? {} };
}

/**
 * The AI SDK `outputSchema` of a tool with an MCP `outputSchema`: the manager's result
 * (what `execute` returns), whose `structuredContent` is the server's schema. None when the
 * server's schema is not an object schema or nests too deep.
 */
function outputSchemaOf(
  hostTool: HostTool,
  options: ToolSetOptions,
): Record<string, unknown> | undefined {
  if (hostTool.outputSchema === undefined) return undefined;
  const structured = objectSchema(hostTool.outputSchema);
  if (
    structured === undefined ||
    jsonValueDepth(structured, DEFAULT_MAX_JSON_DEPTH) > DEFAULT_MAX_JSON_DEPTH - 2
  ) {
    options.onWarning?.(
      `MCP server "${hostTool.server}": tool "${hostTool.tool}": its outputSchema is not a JSON Schema of type "object" within the ${DEFAULT_MAX_JSON_DEPTH}-level limit; the tool is kept without it`,
    );
    return undefined;
  }
  return {
    type: 'object',
    properties: {
      content: { type: 'array' },
      text: { type: 'string' },
      isError: { type: 'boolean' },
      structuredContent: structured,
      _meta: { type: 'object' },
      truncated: { type: 'boolean' },
      files: { type: 'array' },
    },
    required: ['content', 'text', 'isError'],
  };
}

function inlineOptions(value: ToolSetOptions['inlineFiles']): InlineFilesOptions | undefined {
  if (value === undefined || value === false) return undefined;
  const given = value === true ? {} : value;
  return {
    mediaTypes: given.mediaTypes ?? toolSetDefaults.inlineFiles.mediaTypes,
    maxBytes: given.maxBytes ?? toolSetDefaults.inlineFiles.maxBytes,
  };
}

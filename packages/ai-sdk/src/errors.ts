import { McpkitError, type McpkitErrorOptions } from '@mcpkit/jsonrpc';
import type { HostToolResult } from '@mcpkit/manager';

/** Codes of the errors `@mcpkit/ai-sdk` throws (their `code`). Stable: match on these. */
export const AiSdkErrorCode = {
  ToolResult: 'MCPKIT_AI_SDK_TOOL_RESULT',
} as const;
export type AiSdkErrorCode = (typeof AiSdkErrorCode)[keyof typeof AiSdkErrorCode];

const MAX_MESSAGE_TEXT = 2_000;

/**
 * An MCP tool answered with `isError: true`. Thrown from a tool's `execute`, so the AI SDK
 * records it as a `tool-error` part and sends its message to the model as the tool's
 * error output: the message carries the tool's own text, which is what the model needs to
 * correct its call. The full normalized result is on `result`.
 */
export class ToolResultError extends McpkitError {
  static readonly brand: string = '@mcpkit/ai-sdk.ToolResultError';
  override readonly name: string = 'ToolResultError';
  readonly server: string;
  readonly tool: string;
  readonly result: HostToolResult;

  constructor(server: string, tool: string, result: HostToolResult, options?: McpkitErrorOptions) {
    const text = result.text.trim();
    const shown =
      text.length > MAX_MESSAGE_TEXT ? `${text.slice(0, MAX_MESSAGE_TEXT)}… [truncated]` : text;
    super(
      AiSdkErrorCode.ToolResult,
      `MCP server "${server}": tool "${tool}" reported an error: ${shown || '(no text)'} — check the arguments against the tool's input schema and call it again, or use another tool`,
      options,
    );
    this.server = server;
    this.tool = tool;
    this.result = result;
  }
}

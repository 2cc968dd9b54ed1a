import { isDeepStrictEqual } from 'node:util';
import {
  type CallToolResult,
  type ContentBlock,
  type GetPromptResult,
  isTextResourceContents,
  type ReadResourceResult,
} from '@mcpkit/protocol';

export { table } from './table.js';

export function formatContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[resource link] ${block.uri}${block.name ? ` (${block.name})` : ''}`;
    case 'resource': {
      const r = block.resource;
      return isTextResourceContents(r)
        ? `[resource ${r.uri}]\n${r.text}`
        : `[resource ${r.uri}, ${r.mimeType ?? 'binary'}]`;
    }
    default:
      return JSON.stringify(block);
  }
}

/**
 * A tool's result as text: each content block, then its structured content as JSON.
 * `terminal`: the structured content is left out when a text block already is that JSON
 * (parsed and compared deeply), as servers send it for older clients: shown once. Into a
 * pipe or a file both stay (`--json` is the byte-exact form).
 */
export function formatToolResult(
  result: CallToolResult,
  options: { terminal?: boolean } = {},
): string {
  const parts = result.content.map(formatContent);
  const structured = result.structuredContent;
  if (structured !== undefined && !(options.terminal && textIsJson(result.content, structured))) {
    parts.push(`structured content:\n${JSON.stringify(structured, null, 2)}`);
  }
  return parts.join('\n');
}

/** A text block of `content` is `value` as JSON. */
function textIsJson(content: readonly ContentBlock[], value: unknown): boolean {
  return content.some((block) => {
    if (block.type !== 'text') return false;
    try {
      return isDeepStrictEqual(JSON.parse(block.text), value);
    } catch {
      return false;
    }
  });
}

export function formatResource(result: ReadResourceResult): string {
  return result.contents
    .map((c) =>
      isTextResourceContents(c)
        ? c.text
        : `[${c.mimeType ?? 'binary'} ${c.uri}, ${Math.floor((c.blob.length * 3) / 4)} bytes]`,
    )
    .join('\n');
}

export function formatPrompt(result: GetPromptResult): string {
  const head = result.description ? `${result.description}\n\n` : '';
  return head + result.messages.map((m) => `${m.role}: ${formatContent(m.content)}`).join('\n\n');
}

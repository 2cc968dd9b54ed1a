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

export function formatToolResult(result: CallToolResult): string {
  const parts = result.content.map(formatContent);
  if (result.structuredContent !== undefined) {
    parts.push(`structured content:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  return parts.join('\n');
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

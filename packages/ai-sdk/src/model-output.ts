import type { HostContent, HostToolResult } from '@mcpkit/manager';

/** The part of the AI SDK's `ToolResultOutput` (majors 6 and 7) this package produces. */
export type ModelOutput =
  | { type: 'text'; value: string }
  | { type: 'error-text'; value: string }
  | { type: 'json'; value: JsonValue }
  | {
      type: 'content';
      value: Array<
        | { type: 'text'; text: string }
        | { type: 'file-data'; data: string; mediaType: string; filename?: string }
      >;
    };

type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

export interface InlineFilesOptions {
  /** Media types sent to the model as data. Default: images only (`image/`). */
  mediaTypes: readonly string[];
  /** Larger files stay references. */
  maxBytes: number;
}

/** The text a model gets for a file it is not sent: where it is and what it holds. */
function reference(c: Extract<HostContent, { type: 'file' }>): string {
  return `[${c.kind} saved to ${c.path} (${c.mimeType}, ${c.bytes} bytes)]`;
}

function textOf(c: HostContent): string {
  switch (c.type) {
    case 'text':
    case 'resource':
      return c.text;
    case 'file':
      return reference(c);
    case 'resource_link':
      return `[resource ${c.name}: ${c.uri}]`;
  }
}

/**
 * What the model sees of a tool result. `structured` (the tool declares an output schema
 * and renders no view): its `structuredContent` as a `json` output. Otherwise by default the manager's `text`, where binary
 * content already stands as a reference to the file the manager wrote. With `inline`,
 * files of the chosen media types are read back and sent as `file-data` parts (for models
 * that take images); a file that is gone (the manager closed) or too large stays a
 * reference.
 */
export async function toModelOutput(
  result: HostToolResult,
  inline: InlineFilesOptions | undefined,
  asError: boolean,
  structured = false,
): Promise<ModelOutput> {
  // A tool with an output schema: its structured result, as the AI SDK's `json` output.
  if (structured && !asError && result.structuredContent !== undefined)
    return { type: 'json', value: result.structuredContent as JsonValue };
  const wanted = (c: HostContent): c is Extract<HostContent, { type: 'file' }> =>
    c.type === 'file' &&
    c.bytes <= inline!.maxBytes &&
    inline!.mediaTypes.some((m) => c.mimeType.toLowerCase().startsWith(m));
  if (asError || inline === undefined || !result.content.some(wanted))
    return { type: asError ? 'error-text' : 'text', value: result.text };
  // Loaded only when a host asks for inline files, so the default path needs no node:fs.
  const { readFile } = await import('node:fs/promises');
  const parts: Extract<ModelOutput, { type: 'content' }>['value'] = [];
  for (const c of result.content) {
    if (wanted(c)) {
      const data = await readFile(c.path).catch(() => undefined);
      if (data !== undefined && data.length <= inline.maxBytes) {
        parts.push({
          type: 'file-data',
          data: data.toString('base64'),
          mediaType: c.mimeType,
          filename: c.path.slice(c.path.lastIndexOf('/') + 1),
        });
        continue;
      }
    }
    const text = textOf(c);
    const last = parts.at(-1);
    // Neighbouring text blocks travel as one part, as they do in `result.text`.
    if (last?.type === 'text') last.text += `\n${text}`;
    else parts.push({ type: 'text', text });
  }
  return { type: 'content', value: parts };
}

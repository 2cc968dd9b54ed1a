import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from '@mcpkit/jsonrpc';
import type { CallToolResult, ContentBlock } from '@mcpkit/protocol';

/** What a host's model gets for one content block. Binary data is a file reference. */
export type HostContent =
  | { type: 'text'; text: string }
  | {
      type: 'file';
      kind: 'image' | 'audio' | 'resource';
      path: string;
      mimeType: string;
      bytes: number;
      uri?: string;
    }
  | { type: 'resource'; uri: string; mimeType?: string; text: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string; description?: string };

export interface HostToolResult {
  content: HostContent[];
  /** Everything as one text for hosts that take a string. */
  text: string;
  isError: boolean;
  structuredContent?: unknown;
  /** The result's `_meta` as the server sent it (MCP Apps: e.g. a view's own ids). */
  _meta?: Record<string, unknown>;
  /** Output past the budget was cut; the text says where. */
  truncated: boolean;
  files: Array<{ path: string; mimeType: string; bytes: number }>;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'application/zip': 'zip',
  'application/gzip': 'gz',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'text/html': 'html',
};

/** The file extension for a (server-supplied, so untrusted) MIME type: a fixed table, else `bin`. */
export function extensionFor(mimeType: string | undefined): string {
  const key = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[key] ?? 'bin';
}

/**
 * Where one manager writes binary results: a private temp directory (0700) created on
 * first use, files 0600, the whole directory removed by `dispose()`.
 */
export class FileSink {
  private dir: Promise<string> | undefined;
  private count = 0;

  constructor(private readonly root: string = tmpdir()) {}

  async write(server: string, tool: string, data: Buffer, mimeType: string): Promise<string> {
    this.dir ??= mkdtemp(path.join(this.root, 'mcpkit-manager-'));
    const dir = await this.dir;
    const safe = `${server}-${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
    const file = path.join(
      dir,
      `${safe}-${++this.count}-${randomBytes(3).toString('hex')}.${extensionFor(mimeType)}`,
    );
    await writeFile(file, data, { mode: 0o600, flag: 'wx' });
    return file;
  }

  /** The directory, if anything was written. */
  async directory(): Promise<string | undefined> {
    return this.dir ? this.dir : undefined;
  }

  async dispose(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true });
  }
}

export function truncationMarker(
  shown: number,
  total: number,
  raise = 'raise limits.outputBudgetChars',
): string {
  return `\n… [output truncated: showing ${shown} of ${total} characters; ask for less, or ${raise}]`;
}

/**
 * The common case without a promise: every block is text and the whole fits the budget.
 * Undefined when the result needs the full path (binary, resources, links, a cut, or
 * `structuredContent` with no content).
 */
export function normalizeTextResult(
  result: CallToolResult,
  budgetChars: number,
): HostToolResult | undefined {
  const blocks = result.content;
  if (!Array.isArray(blocks) || blocks.length === 0) return undefined;
  const content: HostContent[] = [];
  let total = 0;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as { type?: unknown; text?: unknown };
    if (block?.type !== 'text' || typeof block.text !== 'string') return undefined;
    total += block.text.length;
    if (total > budgetChars) return undefined;
    content.push({ type: 'text', text: block.text });
  }
  const text =
    content.length === 1
      ? (content[0] as { text: string }).text
      : content.map((c) => (c as { text: string }).text).join('\n');
  const out: HostToolResult = {
    content,
    text,
    isError: result.isError === true,
    truncated: false,
    files: [],
  };
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent;
  const meta = resultMeta(result);
  if (meta) out._meta = meta;
  return out;
}

/**
 * A tool result made ready for a host: text kept, binary written to files, an output
 * budget with an explicit marker (nothing dropped silently), `structuredContent` kept.
 */
export async function normalizeResult(
  result: CallToolResult,
  context: {
    server: string;
    tool: string;
    budgetChars: number;
    files: FileSink;
    /** How to accept more output, in the host's words. */
    raiseBudget?: string;
  },
): Promise<HostToolResult> {
  const content: HostContent[] = [];
  const files: HostToolResult['files'] = [];
  const blocks: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  const saveBinary = async (
    kind: 'image' | 'audio' | 'resource',
    base64: string,
    mime: string,
    uri?: string,
  ) => {
    const data = Buffer.from(base64, 'base64');
    const file = await context.files.write(context.server, context.tool, data, mime);
    files.push({ path: file, mimeType: mime, bytes: data.length });
    content.push({
      type: 'file',
      kind,
      path: file,
      mimeType: mime,
      bytes: data.length,
      ...(uri ? { uri } : {}),
    });
  };
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        content.push({ type: 'text', text: String(block.text) });
        break;
      case 'image':
      case 'audio':
        await saveBinary(
          block.type,
          String(block.data),
          String(block.mimeType ?? 'application/octet-stream'),
        );
        break;
      case 'resource': {
        const r = block.resource as {
          uri: string;
          mimeType?: string;
          text?: string;
          blob?: string;
        };
        if (typeof r.blob === 'string')
          await saveBinary('resource', r.blob, r.mimeType ?? 'application/octet-stream', r.uri);
        else
          content.push({
            type: 'resource',
            uri: r.uri,
            text: String(r.text ?? ''),
            ...(r.mimeType ? { mimeType: r.mimeType } : {}),
          });
        break;
      }
      case 'resource_link':
        content.push({
          type: 'resource_link',
          uri: block.uri,
          name: block.name,
          ...(block.mimeType ? { mimeType: block.mimeType } : {}),
          ...(block.description ? { description: block.description } : {}),
        });
        break;
      default:
        content.push({
          type: 'text',
          text: `[unsupported content type "${String((block as { type?: unknown }).type)}"]`,
        });
    }
  }
  if (content.length === 0 && result.structuredContent !== undefined) {
    // JSON.stringify recurses: too deep a value fails this call with a typed error.
    assertJsonDepth(
      result.structuredContent,
      DEFAULT_MAX_JSON_DEPTH,
      `server "${context.server}": the structuredContent of tool "${context.tool}"`,
    );
    content.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  }
  const budgeted = applyBudget(content, context.budgetChars, context.raiseBudget);
  return {
    content: budgeted.content,
    text: budgeted.content.map(asText).join('\n'),
    isError: result.isError === true,
    ...(result.structuredContent !== undefined
      ? { structuredContent: result.structuredContent }
      : {}),
    ...metaOf(result),
    truncated: budgeted.truncated,
    files,
  };
}

function asText(c: HostContent): string {
  switch (c.type) {
    case 'text':
    case 'resource':
      return c.text;
    case 'file':
      return `[${c.kind} saved to ${c.path} (${c.mimeType}, ${c.bytes} bytes)]`;
    case 'resource_link':
      return `[resource ${c.name}: ${c.uri}]`;
  }
}

/** Cuts text blocks once the budget is spent; the marker says how much was left out. */
function applyBudget(
  content: HostContent[],
  budget: number,
  raiseBudget: string | undefined,
): { content: HostContent[]; truncated: boolean } {
  const total = content.reduce(
    (n, c) => n + (c.type === 'text' || c.type === 'resource' ? c.text.length : 0),
    0,
  );
  if (total <= budget) return { content, truncated: false };
  let left = budget;
  const out: HostContent[] = [];
  for (const c of content) {
    if (c.type !== 'text' && c.type !== 'resource') {
      out.push(c);
      continue;
    }
    if (left <= 0) continue;
    if (c.text.length <= left) {
      out.push(c);
      left -= c.text.length;
      continue;
    }
    out.push({ ...c, text: c.text.slice(0, left) });
    left = 0;
  }
  out.push({ type: 'text', text: truncationMarker(budget, total, raiseBudget) });
  return { content: out, truncated: true };
}

function resultMeta(result: CallToolResult): Record<string, unknown> | undefined {
  const meta = (result as { _meta?: unknown })._meta;
  return meta && typeof meta === 'object' && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

function metaOf(result: CallToolResult): { _meta?: Record<string, unknown> } {
  const meta = resultMeta(result);
  return meta ? { _meta: meta } : {};
}

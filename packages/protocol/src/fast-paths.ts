import { isRecord } from '@mcpkit/jsonrpc/internal';
import type { InitializeResult } from './schemas/capabilities.js';
import type { CallToolResult, ListToolsResult } from './schemas/features.js';

/**
 * Allocation-free checks for the commonest results. Each returns the value itself when
 * it has a plain, common shape that the zod schema certainly accepts unchanged, and
 * `undefined` otherwise, so that callers fall back to the full schema (which also
 * produces the detailed error). They never accept what the schema would reject.
 */

/** Keys allowed on a fast-path text block: anything else goes to the full schema. */
function isPlainTextBlock(block: unknown): boolean {
  if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
  for (const key in block) if (key !== 'type' && key !== 'text') return false;
  return true;
}

export function fastCallToolResult(value: unknown): CallToolResult | undefined {
  if (!isRecord(value)) return undefined;
  const content = value.content;
  if (!Array.isArray(content)) return undefined;
  for (const key in value) {
    if (key === 'content') continue;
    if (key === 'isError') {
      if (typeof value.isError !== 'boolean') return undefined;
    } else if (key === 'structuredContent' || key === '_meta') {
      if (!isRecord(value[key])) return undefined;
    } else if (key === 'resultType') {
      if (value.resultType !== 'complete') return undefined;
    } else {
      return undefined;
    }
  }
  for (let i = 0; i < content.length; i++) if (!isPlainTextBlock(content[i])) return undefined;
  return value as CallToolResult;
}

const optionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';
const optionalBoolean = (v: unknown): boolean => v === undefined || typeof v === 'boolean';
const optionalRecord = (v: unknown): boolean => v === undefined || isRecord(v);

/** A loose object whose listed keys, when present, are all booleans. */
function flags(v: unknown, keys: readonly string[]): boolean {
  if (v === undefined) return true;
  if (!isRecord(v)) return false;
  for (const key of keys) if (!optionalBoolean(v[key])) return false;
  return true;
}

function plainImplementation(v: unknown): boolean {
  if (!isRecord(v) || typeof v.name !== 'string' || typeof v.version !== 'string') return false;
  if (v.icons !== undefined) return false;
  return optionalString(v.title) && optionalString(v.description) && optionalString(v.websiteUrl);
}

function plainServerCapabilities(v: unknown): boolean {
  if (!isRecord(v)) return false;
  if (v.experimental !== undefined) {
    if (!isRecord(v.experimental)) return false;
    for (const key in v.experimental) {
      // The schema drops an own `__proto__` key (zod sets it as it copies): left to the
      // schema, so that the two paths give the same value.
      if (key === '__proto__' || !isRecord(v.experimental[key])) return false;
    }
  }
  return (
    optionalRecord(v.logging) &&
    optionalRecord(v.completions) &&
    optionalRecord(v.tasks) &&
    flags(v.prompts, ['listChanged']) &&
    flags(v.tools, ['listChanged']) &&
    flags(v.resources, ['subscribe', 'listChanged'])
  );
}

export function fastInitializeResult(value: unknown): InitializeResult | undefined {
  if (!isRecord(value) || typeof value.protocolVersion !== 'string') return undefined;
  if (!plainServerCapabilities(value.capabilities) || !plainImplementation(value.serverInfo))
    return undefined;
  if (!optionalString(value.instructions) || !optionalRecord(value._meta)) return undefined;
  return value as InitializeResult;
}

const TOOL_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

function objectSchema(v: unknown): boolean {
  return isRecord(v) && v.type === 'object' && optionalRecord(v.properties);
}

function plainTool(v: unknown): boolean {
  if (!isRecord(v) || typeof v.name !== 'string' || !objectSchema(v.inputSchema)) return false;
  if (v.icons !== undefined || v.execution !== undefined) return false;
  if (!optionalString(v.title) || !optionalString(v.description) || !optionalRecord(v._meta))
    return false;
  if (v.outputSchema !== undefined && !objectSchema(v.outputSchema)) return false;
  const a = v.annotations;
  if (
    a !== undefined &&
    (!flags(a, TOOL_HINTS) || !optionalString((a as Record<string, unknown>).title))
  )
    return false;
  return true;
}

export function fastListToolsResult(value: unknown): ListToolsResult | undefined {
  if (!isRecord(value) || !Array.isArray(value.tools)) return undefined;
  if (!optionalString(value.nextCursor) || !optionalRecord(value._meta)) return undefined;
  for (const tool of value.tools) if (!plainTool(tool)) return undefined;
  return value as ListToolsResult;
}

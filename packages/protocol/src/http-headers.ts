import type { JsonRpcMessage } from '@mcpkit/jsonrpc';
import { isRecord } from '@mcpkit/jsonrpc/internal';

/**
 * HTTP request metadata of the 2026-07-28 Streamable HTTP binding: body fields mirrored
 * into headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) so that intermediaries can route
 * without parsing bodies.
 */

const SENTINEL = /^=\?base64\?.*\?=$/s;
/** Visible ASCII, space and tab, with no leading or trailing whitespace. */
const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

/** Encodes a value for a header: as is when header-safe, else `=?base64?…?=` of its UTF-8. */
export function encodeHeaderValue(value: string | number | boolean): string {
  const text = typeof value === 'string' ? value : String(value);
  if (HEADER_SAFE.test(text) && !SENTINEL.test(text)) return text;
  return `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** Decodes a header value written by `encodeHeaderValue`. */
export function decodeHeaderValue(value: string): string {
  const m = /^=\?base64\?(.*)\?=$/s.exec(value);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : value;
}

const NAME_SOURCE: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'prompts/get': 'name',
  // The tasks extension routes a task's requests by its id.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** `Mcp-Method` for every message with a method; `Mcp-Name` for tools/call, resources/read, prompts/get and the tasks extension's tasks/get, tasks/update, tasks/cancel. */
export function standardRequestHeaders(message: JsonRpcMessage): Record<string, string> {
  if (!('method' in message)) return {};
  const headers: Record<string, string> = { 'mcp-method': message.method };
  const source = NAME_SOURCE[message.method];
  const params = message.params as Record<string, unknown> | undefined;
  const value = source ? params?.[source] : undefined;
  if (typeof value === 'string') headers['mcp-name'] = encodeHeaderValue(value);
  return headers;
}

const TCHAR = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

interface Annotated {
  header: string;
  path: string[];
  type: unknown;
}

/** Every `x-mcp-header` annotation, or the reason the schema's annotations are invalid. */
function annotations(schema: unknown): Annotated[] | string {
  const found: Annotated[] = [];
  const walk = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (Array.isArray(node)) {
      for (const item of node) {
        const r = walk(item, path, false);
        if (r) return r;
      }
      return undefined;
    }
    if (!isRecord(node)) return undefined;
    if ('x-mcp-header' in node) {
      if (!reachable)
        return `x-mcp-header at ${path.join('.') || 'the root'} is not reachable through "properties" alone`;
      const header = node['x-mcp-header'];
      if (typeof header !== 'string' || header === '' || !TCHAR.test(header)) {
        return `x-mcp-header ${JSON.stringify(header)} is not a valid header name token`;
      }
      if (!['string', 'integer', 'boolean'].includes(node.type as string)) {
        return `x-mcp-header "${header}" is on a parameter of type ${JSON.stringify(node.type)}; only string, integer and boolean are allowed`;
      }
      found.push({ header, path, type: node.type });
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'properties' && isRecord(child)) {
        for (const [name, sub] of Object.entries(child)) {
          const r = walk(sub, [...path, name], reachable);
          if (r) return r;
        }
      } else if (key !== 'x-mcp-header') {
        const r = walk(child, path, false);
        if (r) return r;
      }
    }
    return undefined;
  };
  const reason = walk(schema, [], true);
  if (reason) return reason;
  const seen = new Set<string>();
  for (const a of found) {
    const key = a.header.toLowerCase();
    if (seen.has(key))
      return `x-mcp-header "${a.header}" is used twice (names are case-insensitive)`;
    seen.add(key);
  }
  return found;
}

/**
 * Why a tool's `x-mcp-header` annotations are invalid, or `undefined` when they are fine.
 * Over Streamable HTTP a client must drop such a tool from `tools/list`.
 */
export function invalidParamHeaders(inputSchema: unknown): string | undefined {
  const r = annotations(inputSchema);
  return typeof r === 'string' ? r : undefined;
}

/** `Mcp-Param-{Name}` headers for a tools/call, from the tool's `inputSchema` and the arguments. */
export function toolParamHeaders(
  inputSchema: unknown,
  args: Record<string, unknown> | undefined,
): Record<string, string> {
  const r = annotations(inputSchema);
  if (typeof r === 'string') throw new TypeError(r);
  const headers: Record<string, string> = {};
  for (const a of r) {
    let value: unknown = args;
    for (const key of a.path) value = isRecord(value) ? value[key] : undefined;
    if (value === undefined || value === null) continue;
    if (typeof value === 'number' && (!Number.isInteger(value) || Math.abs(value) > MAX_SAFE))
      continue;
    if (!['string', 'number', 'boolean'].includes(typeof value)) continue;
    headers[`mcp-param-${a.header.toLowerCase()}`] = encodeHeaderValue(
      value as string | number | boolean,
    );
  }
  return headers;
}

import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcRequest, RpcError } from '@mcpkit/jsonrpc';
import { MetaKey } from '@mcpkit/protocol';
import { headerMismatch } from '../errors.js';

const NAME_SOURCE: Record<string, 'name' | 'uri' | 'taskId'> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'prompts/get': 'name',
  // The tasks extension routes a task's requests by its id.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};
const FIELD_VALUE = /^[\x20-\x7e\t]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  // RFC 9110: optional whitespace around a field value is not part of it.
  return Array.isArray(value) ? value.join(',').trim() : value?.trim();
}

/**
 * A header value as the client meant it: the `=?base64?…?=` sentinel decoded (strictly:
 * bad padding or characters are refused), anything else literal. `undefined` when invalid.
 */
export function decodeStrict(value: string): string | undefined {
  if (!FIELD_VALUE.test(value)) return undefined;
  const m = /^=\?base64\?(.*)\?=$/s.exec(value);
  if (!m) return value;
  if (!BASE64.test(m[1]!)) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  return text.includes('\ufffd') ? undefined : text;
}

/** Every `x-mcp-header` parameter of an input schema, with its property path and type. */
function annotated(schema: unknown): Array<{ header: string; path: string[]; type: unknown }> {
  const out: Array<{ header: string; path: string[]; type: unknown }> = [];
  const walk = (node: unknown, path: string[], depth: number): void => {
    if (typeof node !== 'object' || node === null || depth > 32) return;
    const n = node as Record<string, unknown>;
    if (typeof n['x-mcp-header'] === 'string')
      out.push({ header: n['x-mcp-header'], path, type: n.type });
    const props = n.properties;
    if (typeof props === 'object' && props !== null) {
      for (const [key, child] of Object.entries(props)) walk(child, [...path, key], depth + 1);
    }
  };
  walk(schema, [], 0);
  return out;
}

function matches(headerValue: string, bodyValue: unknown): boolean {
  if (typeof bodyValue === 'string') return headerValue === bodyValue;
  if (typeof bodyValue === 'boolean') return headerValue === String(bodyValue);
  if (typeof bodyValue === 'number') {
    // Integers compare by value: "42.0" and 42 agree.
    return headerValue.trim() !== '' && Number(headerValue) === bodyValue;
  }
  return false;
}

/**
 * The 2026-07-28 Streamable HTTP checks of a request's headers against its body
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`): a -32020 error for
 * the first disagreement, or undefined. `inputSchemaOf` finds a tool's input schema.
 */
export function checkModernHeaders(
  headers: IncomingHttpHeaders,
  request: JsonRpcRequest,
  inputSchemaOf: (tool: string) => unknown,
): RpcError | undefined {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const version = single(headers, 'mcp-protocol-version');
  if (version === undefined) return headerMismatch('the MCP-Protocol-Version header is missing');
  const meta = params._meta as Record<string, unknown> | undefined;
  const bodyVersion = meta?.[MetaKey.ProtocolVersion];
  if (bodyVersion !== undefined && bodyVersion !== version) {
    return headerMismatch(
      `MCP-Protocol-Version header ${JSON.stringify(version)} does not match _meta ${JSON.stringify(bodyVersion)}`,
    );
  }
  const method = single(headers, 'mcp-method');
  if (method === undefined) return headerMismatch('the Mcp-Method header is missing');
  if (method !== request.method) {
    return headerMismatch(
      `Mcp-Method header ${JSON.stringify(method)} does not match body method ${JSON.stringify(request.method)}`,
    );
  }
  const source = NAME_SOURCE[request.method];
  if (source) {
    const raw = single(headers, 'mcp-name');
    const bodyName = params[source];
    if (raw === undefined)
      return headerMismatch(`the Mcp-Name header is missing for ${request.method}`);
    const name = decodeStrict(raw);
    if (name === undefined)
      return headerMismatch('the Mcp-Name header value is not validly encoded');
    if (name !== bodyName) {
      return headerMismatch(
        `Mcp-Name header ${JSON.stringify(name)} does not match body ${source} ${JSON.stringify(bodyName)}`,
      );
    }
  }
  if (request.method === 'tools/call' && typeof params.name === 'string') {
    const args = params.arguments as Record<string, unknown> | undefined;
    for (const a of annotated(inputSchemaOf(params.name))) {
      let value: unknown = args;
      for (const key of a.path) {
        value =
          typeof value === 'object' && value !== null
            ? (value as Record<string, unknown>)[key]
            : undefined;
      }
      const raw = single(headers, `mcp-param-${a.header.toLowerCase()}`);
      const present = value !== undefined && value !== null;
      if (raw === undefined) {
        if (present) return headerMismatch(`the Mcp-Param-${a.header} header is missing`);
        continue;
      }
      const decoded = decodeStrict(raw);
      if (decoded === undefined) {
        return headerMismatch(`the Mcp-Param-${a.header} header value is not validly encoded`);
      }
      if (!present || !matches(decoded, value)) {
        return headerMismatch(`Mcp-Param-${a.header} header does not match the argument`);
      }
    }
  }
  return undefined;
}

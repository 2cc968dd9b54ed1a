import { describe, expect, it } from 'vitest';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  invalidParamHeaders,
  standardRequestHeaders,
  toolParamHeaders,
} from './http-headers.js';

describe('2026-07-28 request headers', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])("encodes %j as %j (the specification's table), and decodes it back", (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
    expect(decodeHeaderValue(encoded)).toBe(value);
  });

  it('integers and booleans as text', () => {
    expect(encodeHeaderValue(42)).toBe('42');
    expect(encodeHeaderValue(-7)).toBe('-7');
    expect(encodeHeaderValue(false)).toBe('false');
  });

  it('Mcp-Method always, Mcp-Name for tools/call, resources/read and prompts/get', () => {
    expect(
      standardRequestHeaders({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_weather' },
      }),
    ).toEqual({
      'mcp-method': 'tools/call',
      'mcp-name': 'get_weather',
    });
    expect(
      standardRequestHeaders({
        jsonrpc: '2.0',
        id: 2,
        method: 'resources/read',
        params: { uri: 'file:///a b.txt' },
      }),
    ).toEqual({
      'mcp-method': 'resources/read',
      'mcp-name': 'file:///a b.txt',
    });
    expect(
      standardRequestHeaders({
        jsonrpc: '2.0',
        id: 3,
        method: 'prompts/get',
        params: { name: 'résumé' },
      })['mcp-name'],
    ).toBe('=?base64?csOpc3Vtw6k=?=');
    expect(standardRequestHeaders({ jsonrpc: '2.0', id: 4, method: 'tools/list' })).toEqual({
      'mcp-method': 'tools/list',
    });
    expect(standardRequestHeaders({ jsonrpc: '2.0', id: 5, result: {} })).toEqual({});
  });

  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      opts: {
        type: 'object',
        properties: { tenant: { type: 'integer', 'x-mcp-header': 'Tenant' } },
      },
      dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
    },
  };

  it('Mcp-Param-* from x-mcp-header, at the exact property path; absent values are omitted', () => {
    expect(
      toolParamHeaders(schema, {
        region: 'us-west1',
        query: 'select 1',
        opts: { tenant: 42 },
        dryRun: true,
      }),
    ).toEqual({
      'mcp-param-region': 'us-west1',
      'mcp-param-tenant': '42',
      'mcp-param-dry-run': 'true',
    });
    expect(toolParamHeaders(schema, { query: 'x', region: 'Zürich' })).toEqual({
      'mcp-param-region': '=?base64?WsO8cmljaA==?=',
    });
  });

  it('invalid annotations are reported (the client must drop such a tool)', () => {
    expect(invalidParamHeaders(schema)).toBeUndefined();
    expect(
      invalidParamHeaders({
        type: 'object',
        properties: { n: { type: 'number', 'x-mcp-header': 'N' } },
      }),
    ).toMatch(/type "number"/);
    expect(
      invalidParamHeaders({
        type: 'object',
        properties: { a: { type: 'string', 'x-mcp-header': 'Has Space' } },
      }),
    ).toMatch(/not a valid header name/);
    expect(
      invalidParamHeaders({
        type: 'object',
        properties: {
          a: { type: 'string', 'x-mcp-header': 'X' },
          b: { type: 'string', 'x-mcp-header': 'x' },
        },
      }),
    ).toMatch(/used twice/);
    expect(
      invalidParamHeaders({
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } },
      }),
    ).toMatch(/not reachable/);
    expect(
      invalidParamHeaders({
        type: 'object',
        anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }],
      }),
    ).toMatch(/not reachable/);
  });
});

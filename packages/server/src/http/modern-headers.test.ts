import { describe, expect, it } from 'vitest';
import { checkModernHeaders, decodeStrict } from './modern-headers.js';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
  },
};
const call = (args: Record<string, unknown>) => ({
  jsonrpc: '2.0' as const,
  id: 1,
  method: 'tools/call',
  params: { name: 'sql', arguments: args, _meta: meta },
});
const base = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'sql',
};

describe('decodeStrict', () => {
  it('decodes the base64 sentinel strictly and takes anything else literally', () => {
    expect(decodeStrict('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeStrict('=?base64?SGVsbG8?=')).toBeUndefined();
    expect(decodeStrict('=?base64?SGVs!!!bG8=?=')).toBeUndefined();
    expect(decodeStrict('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeStrict('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
    expect(decodeStrict('a\u0001b')).toBeUndefined();
  });
});

describe('checkModernHeaders', () => {
  const check = (headers: Record<string, string>, args: Record<string, unknown>) =>
    checkModernHeaders(headers, call(args), () => schema)?.rpcMessage;

  it('accepts headers that agree with the body, integers compared by value', () => {
    expect(
      check(
        { ...base, 'mcp-param-region': 'eu', 'mcp-param-count': '42.0' },
        { region: 'eu', count: 42 },
      ),
    ).toBe(undefined);
    expect(check({ ...base, 'mcp-name': '  sql  ' }, {})).toBe(undefined);
  });

  it('refuses a missing, mismatched or badly encoded header with -32020', () => {
    expect(check({ ...base }, { region: 'eu' })).toMatch(/Mcp-Param-Region header is missing/);
    expect(check({ ...base, 'mcp-param-region': 'us' }, { region: 'eu' })).toMatch(
      /does not match/,
    );
    expect(check({ ...base, 'mcp-param-region': '=?base64?ZXU?=' }, { region: 'eu' })).toMatch(
      /not validly encoded/,
    );
    expect(check({ ...base, 'mcp-name': 'other' }, {})).toMatch(/Mcp-Name header "other"/);
    expect(check({ ...base, 'mcp-method': 'TOOLS/CALL' }, {})).toMatch(/Mcp-Method header/);
    const { 'mcp-protocol-version': _, ...noVersion } = base;
    expect(check(noVersion, {})).toMatch(/MCP-Protocol-Version header is missing/);
    expect(checkModernHeaders(base, call({}), () => schema)?.rpcCode).toBe(undefined);
    expect(checkModernHeaders({ ...base, 'mcp-name': 'x' }, call({}), () => schema)?.rpcCode).toBe(
      -32020,
    );
  });
});

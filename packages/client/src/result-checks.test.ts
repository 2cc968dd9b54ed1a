import { JsonRpcPeer } from '@mcpkit/jsonrpc';
import { CallToolResultSchema } from '@mcpkit/protocol/schemas';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { InvalidResultError, McpClient } from './index.js';
import { ResultChecks } from './result-checks.js';

// A key named `__proto__` is a plain key in JSON; JSON.parse makes it an own property.
// The image block keeps each result off the hand-written fast checks, so the zod schema
// decides.
const TOOL_RESULT = `{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"structuredContent":{"__proto__":{"polluted":true},"n":1},"_meta":{"__proto__":"m"}}`;
const RESOURCE_RESULT = `{"contents":[{"uri":"file:///a","text":"a","_meta":{"__proto__":[1,2]}}]}`;

async function clientOf(results: Record<string, string>) {
  const [clientEnd, serverEnd] = createInProcessPair();
  const server = new JsonRpcPeer(serverEnd);
  server.setRequestHandler('initialize', (p: { protocolVersion: string }) => ({
    protocolVersion: p.protocolVersion,
    capabilities: { tools: {}, resources: {} },
    serverInfo: { name: 'proto-keys', version: '1.0.0' },
  }));
  server.setNotificationHandler('notifications/initialized', () => {});
  for (const [method, text] of Object.entries(results))
    server.setRequestHandler(method, () => JSON.parse(text));
  await server.start();
  const client = new McpClient({ name: 'proto-keys' });
  await client.connect(clientEnd);
  return client;
}

describe('ResultChecks keeps what the server sent', () => {
  it('zod alone loses a key named __proto__ (why the checks keep the server object)', () => {
    const copy = CallToolResultSchema.parse(JSON.parse(TOOL_RESULT));
    expect(Object.hasOwn(copy.structuredContent ?? {}, '__proto__')).toBe(false);
  });

  it('a tool result checked by the schema keeps its __proto__ keys, byte for byte', async () => {
    const client = await clientOf({ 'tools/call': TOOL_RESULT });
    const result = await client.callTool({ name: 'x', arguments: {} });
    expect(JSON.stringify(result)).toBe(TOOL_RESULT);
    expect(Object.hasOwn(result.structuredContent ?? {}, '__proto__')).toBe(true);
    // An own key, not a prototype: nothing was polluted.
    expect(Object.getPrototypeOf(result.structuredContent)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await client.close();
  });

  it('a resource read keeps a nested __proto__ key in _meta', async () => {
    const client = await clientOf({ 'resources/read': RESOURCE_RESULT });
    const result = await client.readResource('file:///a');
    expect(JSON.stringify(result)).toBe(RESOURCE_RESULT);
    await client.close();
  });

  it('a default the schema fills in is still set, and the rest stays as sent', async () => {
    const checks = new ResultChecks('proto-keys', true);
    const raw = JSON.parse('{"isError":true,"_meta":{"__proto__":1}}');
    const result = await checks.check('tools/call', raw, 'CallToolResultSchema');
    expect(result).toBe(raw);
    expect(result).toMatchObject({ content: [], isError: true });
    expect(JSON.stringify(result)).toBe('{"isError":true,"_meta":{"__proto__":1},"content":[]}');
  });

  it('what the schema refuses is still refused', async () => {
    const checks = new ResultChecks('proto-keys', true);
    const raw = JSON.parse('{"content":[{"type":"image"}],"__proto__":{}}');
    await expect(checks.check('tools/call', raw, 'CallToolResultSchema')).rejects.toBeInstanceOf(
      InvalidResultError,
    );
  });

  it('a result without such keys equals the schema output', async () => {
    const checks = new ResultChecks('proto-keys', true);
    const text = `{"content":[{"type":"resource","resource":{"uri":"u","text":"t"}}],"structuredContent":{"a":[{"b":null}]},"extra":{"x":1}}`;
    const result = await checks.check('tools/call', JSON.parse(text), 'CallToolResultSchema');
    expect(result).toEqual(CallToolResultSchema.parse(JSON.parse(text)));
  });
});

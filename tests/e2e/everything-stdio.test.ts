import { McpClient } from '@mcpkit/client';
import { isTextResourceContents } from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';

describe('server-everything over stdio', () => {
  const client = new McpClient({
    name: 'everything',
    clientInfo: { name: 'mcpkit-e2e', version: '0.0.0' },
  });
  const stderr: string[] = [];

  beforeAll(async () => {
    await client.connect(
      new StdioTransport({
        command: process.execPath,
        args: [everythingEntry, 'stdio'],
        name: 'everything',
        onstderr: (t) => stderr.push(t),
      }),
    );
  });
  afterAll(() => client.close());

  it('negotiates a protocol version and reports the server', () => {
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo?.name).toMatch(/everything/i);
    expect(client.serverCapabilities?.tools).toBeDefined();
  });

  it('lists at least 13 tools with input schemas', async () => {
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(13);
    expect(tools.map((t) => t.name)).toContain('get-sum');
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it('get-sum returns 5 for 2 and 3', async () => {
    const result = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    const text = result.content.find((c) => c.type === 'text');
    expect(text?.type === 'text' && text.text).toMatch(/\b5\b/);
    expect(result.isError).not.toBe(true);
  });

  it('reads a static resource', async () => {
    const resources = await client.listResources();
    const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'));
    expect(doc).toBeDefined();
    const read = await client.readResource(doc!.uri);
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]!.uri).toBe(doc!.uri);
    const content = read.contents[0]!;
    expect(
      isTextResourceContents(content) ? content.text.length : content.blob.length,
    ).toBeGreaterThan(0);
  });

  it('fetches a prompt with arguments', async () => {
    const prompts = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('args-prompt');
    const prompt = await client.getPrompt('args-prompt', { city: 'Lisbon', state: 'Lisboa' });
    expect(prompt.messages[0]!.content).toEqual({
      type: 'text',
      text: "What's weather in Lisbon, Lisboa?",
    });
  });

  it('an unknown tool is reported without breaking the connection', async () => {
    const result = await client.callTool({ name: 'no-such-tool' }).catch((e: unknown) => e);
    // Servers built on the official SDK answer with isError or a -32602 error.
    if (result instanceof Error) expect(result.message).toMatch(/no-such-tool/);
    else expect((result as { isError?: boolean }).isError).toBe(true);
    await client.ping();
  });
});

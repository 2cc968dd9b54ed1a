import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { fixture, startHttpFixture } from './support/servers.js';

/**
 * The official SDK clients against a server built on @mcpkit/server: SDK v1 (2025
 * revisions) and SDK v2 (both eras: `legacy` and `auto`, which lands on 2026-07-28), over
 * a real child process on stdio and a real node:http server on 127.0.0.1.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

type Binding = 'stdio' | 'http';

async function endpoint(binding: Binding): Promise<URL | undefined> {
  if (binding === 'stdio') return undefined;
  const http = await startHttpFixture();
  cleanups.push(() => http.close());
  return http.url;
}

/**
 * The SDKs run notification handlers a microtask later than responses: over stdio, when the
 * last progress notification and the response arrive in one chunk, the SDK has dropped its
 * progress handler before the notification runs. Everything before it must arrive, in order.
 */
function expectProgress(seen: number[]): void {
  expect(seen.slice(0, 2)).toEqual([0, 50]);
  expect(seen.length === 2 || seen[2] === 100).toBe(true);
}

const text = (result: unknown) =>
  (result as { content: Array<{ text?: string }> }).content.map((c) => c.text ?? '').join('');

describe.each(['stdio', 'http'] as Binding[])('SDK v1 client over %s', (binding) => {
  async function open() {
    const url = await endpoint(binding);
    const client = new ClientV1(
      { name: 'sdk-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({
      action: 'accept',
      content: {
        username: 'ada',
        email: 'ada@example.com',
        name: String(request.params.message).length > 0 ? 'Ada' : '',
      },
    }));
    await client.connect(
      url
        ? new HttpV1(url)
        : new StdioV1({ command: process.execPath, args: [fixture, 'stdio'], stderr: 'pipe' }),
    );
    cleanups.push(() => client.close());
    return client;
  }

  it('initializes, lists and calls tools, reads resources and gets prompts', async () => {
    const client = await open();
    expect(client.getServerVersion()?.name).toBe('mcpkit-conformance-server');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'test_header_param')?.inputSchema).toMatchObject({
      properties: { region: { 'x-mcp-header': 'Region' } },
    });
    expect(text(await client.callTool({ name: 'test_simple_text', arguments: {} }))).toContain(
      'simple text',
    );
    const read = await client.readResource({ uri: 'test://static-binary' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'image/png' });
    const prompt = await client.getPrompt({ name: 'test_simple_prompt' });
    expect(prompt.messages).toHaveLength(1);
  });

  it('answers an elicitation the tool asks for, then gets the result', async () => {
    const client = await open();
    const result = await client.callTool({
      name: 'test_elicitation',
      arguments: { message: 'Who are you?' },
    });
    expect(text(result)).toBe(
      'User response: action=accept, content={"username":"ada","email":"ada@example.com","name":"Ada"}',
    );
  });

  it('receives progress and cancels a call', async () => {
    const client = await open();
    const seen: number[] = [];
    await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expectProgress(seen);
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'test_wait_for_cancel', arguments: { key: 'v1' } },
      undefined,
      {
        signal: controller.signal,
        onprogress: () => controller.abort('stop'),
      },
    );
    await expect(call).rejects.toThrow();
    const observed = await client.callTool({
      name: 'test_await_cancellation',
      arguments: { key: 'v1' },
    });
    expect(text(observed)).toMatch(/^cancelled: /);
  });
});

describe.each([
  ['stdio', 'legacy'],
  ['stdio', 'auto'],
  ['http', 'legacy'],
  ['http', 'auto'],
] as Array<[Binding, 'legacy' | 'auto']>)(
  'SDK v2 client over %s, negotiation %s',
  (binding, mode) => {
    async function open() {
      const url = await endpoint(binding);
      const client = new ClientV2(
        { name: 'sdk-v2', version: '2.0.0' },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
      );
      client.setRequestHandler('elicitation/create', async () => ({
        action: 'accept',
        content: { name: 'Grace' },
      }));
      await client.connect(
        url
          ? new HttpV2(url)
          : new StdioV2({ command: process.execPath, args: [fixture, 'stdio'], stderr: 'pipe' }),
      );
      cleanups.push(() => client.close());
      return client;
    }

    it('speaks the era it negotiated and calls tools with elicitation and progress', async () => {
      const client = await open();
      expect(client.getNegotiatedProtocolVersion()).toBe(
        mode === 'auto' ? '2026-07-28' : '2025-11-25',
      );
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('test_input_required_result_elicitation');
      expect(
        text(
          await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} }),
        ),
      ).toBe('Hello, Grace!');
      const seen: number[] = [];
      await client.callTool(
        { name: 'test_tool_with_progress', arguments: {} },
        { onprogress: (p: { progress: number }) => seen.push(p.progress) },
      );
      expectProgress(seen);
      const read = await client.readResource({ uri: 'test://static-text' });
      expect(read.contents[0]).toMatchObject({
        text: 'This is the content of the static text resource.',
      });
    });

    it('cancels a call and the server handler sees it', async () => {
      const client = await open();
      const controller = new AbortController();
      const call = client.callTool(
        { name: 'test_wait_for_cancel', arguments: { key: `v2-${mode}` } },
        { signal: controller.signal, onprogress: () => controller.abort('stop') },
      );
      await expect(call).rejects.toThrow();
      const observed = await client.callTool({
        name: 'test_await_cancellation',
        arguments: { key: `v2-${mode}` },
      });
      expect(text(observed)).toMatch(/^cancelled: /);
    });
  },
);

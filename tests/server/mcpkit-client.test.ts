import { McpClient } from '@mcpkit/client';
import type { Transport } from '@mcpkit/jsonrpc';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';
import { SchemaCheckedTransport } from '../support/schema-check.js';
import { fixture, type HttpFixture, startHttpFixture } from './support/servers.js';

/**
 * Our own McpClient against a server built on @mcpkit/server, over stdio (a real child
 * process running the fixture) and Streamable HTTP (a real node:http server on
 * 127.0.0.1), in both eras; every message the server sends is checked against the
 * official schema of the revision in force.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

type Binding = 'stdio' | 'http';
type Era = 'legacy' | 'modern';

async function open(
  binding: Binding,
  era: Era,
  extra: Partial<ConstructorParameters<typeof McpClient>[0]> = {},
) {
  let transport: Transport;
  if (binding === 'stdio') {
    transport = new StdioTransport({
      command: process.execPath,
      args: [fixture, 'stdio'],
      name: 'fixture',
    });
  } else {
    const http: HttpFixture = await startHttpFixture();
    cleanups.push(() => http.close());
    transport = new StreamableHttpTransport({ url: http.url, name: 'fixture' });
  }
  const check = new SchemaCheckedTransport(transport, 'received');
  const client = new McpClient({
    name: 'fixture',
    era,
    eraCache: false,
    handlers: {
      // Answers the fields the form asks for, from a fixed set.
      elicitation: (params) => {
        const schema = (params as { requestedSchema?: { properties?: Record<string, unknown> } })
          .requestedSchema;
        const answers: Record<string, string | boolean> = { name: 'Ada', color: 'blue', ok: true };
        const wanted = Object.keys(schema?.properties ?? {}).filter((k) => k in answers);
        return {
          action: 'accept',
          content: Object.fromEntries(wanted.map((k) => [k, answers[k]!])),
        };
      },
      sampling: () => ({
        role: 'assistant',
        content: { type: 'text', text: 'Paris' },
        model: 'test-model',
        stopReason: 'endTurn',
      }),
      roots: () => [{ uri: 'file:///work', name: 'work' }],
    },
    ...extra,
  });
  await client.connect(check);
  cleanups.push(() => client.close());
  return { client, check };
}

const text = (result: { content: Array<{ type: string; text?: string }> }) =>
  result.content.map((c) => c.text ?? '').join('');

describe.each([
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'legacy'],
  ['http', 'modern'],
] as Array<[Binding, Era]>)('McpClient against @mcpkit/server over %s, %s era', (binding, era) => {
  it('negotiates the era and lists and calls tools, prompts and resources', async () => {
    const { client, check } = await open(binding, era);
    expect(client.era).toBe(era);
    expect(client.protocolVersion).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
    expect(client.serverInfo?.name).toBe('mcpkit-conformance-server');

    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('test_simple_text');
    expect(text(await client.callTool({ name: 'test_simple_text' }))).toBe(
      'This is a simple text response for testing.',
    );
    const failed = await client.callTool({ name: 'test_error_handling' });
    expect(failed.isError).toBe(true);

    const prompt = await client.getPrompt('test_prompt_with_arguments', { arg1: 'a', arg2: 'b' });
    expect(prompt.messages[0]?.content).toEqual({
      type: 'text',
      text: "Prompt with arguments: arg1='a', arg2='b'",
    });

    const resources = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('test://static-text');
    const read = await client.readResource('test://template/7/data');
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: '7' });
    await expect(client.readResource('test://nope')).rejects.toMatchObject({
      rpcCode: era === 'modern' ? -32602 : -32002,
    });

    const completion = await client.complete(
      { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      { name: 'arg1', value: 'pa' },
    );
    expect(completion.completion.values).toEqual(['paris', 'park', 'party']);
    expect(check.problems()).toEqual([]);
  });

  it('reports progress to the caller', async () => {
    const { client, check } = await open(binding, era);
    const seen: number[] = [];
    await client.callTool(
      { name: 'test_tool_with_progress' },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(seen).toEqual([0, 50, 100]);
    expect(check.problems()).toEqual([]);
  });

  it('asks the client for input: elicitation, sampling and roots, in one call', async () => {
    const { client, check } = await open(binding, era);
    expect(text(await client.callTool({ name: 'test_input_required_result_elicitation' }))).toBe(
      'Hello, Ada!',
    );
    expect(
      text(await client.callTool({ name: 'test_input_required_result_multiple_inputs' })),
    ).toBe('Paris Ada (1 roots)');
    expect(text(await client.callTool({ name: 'test_input_required_result_multi_round' }))).toBe(
      'Ada likes blue',
    );
    expect(
      text(await client.callTool({ name: 'test_input_required_result_request_state' })),
    ).toContain('state-ok');
    // Legacy: real server→client requests; modern: input_required rounds.
    const kinds = check.received.map((r) => ('method' in r.message ? r.message.method : undefined));
    if (era === 'legacy') expect(kinds).toContain('elicitation/create');
    else
      expect(
        check.received.some(
          (r) =>
            (r.message as { result?: { resultType?: string } }).result?.resultType ===
            'input_required',
        ),
      ).toBe(true);
    expect(check.problems()).toEqual([]);
  });

  it('stops a handler when the client cancels its call', async () => {
    const { client, check } = await open(binding, era);
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'test_wait_for_cancel', arguments: { key: 'k1' } },
      {
        signal: controller.signal,
        onprogress: () => controller.abort(new Error('user cancelled')),
      },
    );
    await expect(call).rejects.toThrow('user cancelled');
    const observed = await client.callTool({
      name: 'test_await_cancellation',
      arguments: { key: 'k1' },
    });
    expect(text(observed)).toMatch(/^cancelled: /);
    expect(check.problems()).toEqual([]);
  });

  it('tells the client when the tool list changes', async () => {
    const changed: string[] = [];
    let signal!: () => void;
    const arrived = new Promise<void>((resolve) => {
      signal = resolve;
    });
    const { client, check } = await open(binding, era, {
      onlistchanged: (list) => {
        changed.push(list);
        signal();
      },
    });
    const subscription =
      era === 'modern' ? await client.listen({ toolsListChanged: true }) : undefined;
    const before = (await client.listTools()).length;
    await client.callTool({ name: 'test_trigger_tool_change' });
    await arrived;
    expect(changed).toContain('tools');
    expect((await client.listTools()).length).toBe(before + 1);
    await subscription?.close();
    expect(check.problems()).toEqual([]);
  });

  it('tells a subscribed client that a resource changed', async () => {
    let updated!: (uri: string) => void;
    const arrived = new Promise<string>((resolve) => {
      updated = resolve;
    });
    const { client, check } = await open(binding, era, {
      onresourceupdated: (uri) => updated(uri),
    });
    const uri = 'test://watched-resource';
    const subscription =
      era === 'modern' ? await client.listen({ resourceSubscriptions: [uri] }) : undefined;
    if (era === 'legacy') await client.subscribeResource(uri);
    await client.callTool({ name: 'test_touch_watched_resource' });
    expect(await arrived).toBe(uri);
    await subscription?.close();
    expect(check.problems()).toEqual([]);
  });

  it('sends log messages only at or above the level the client chose', async () => {
    const levels: string[] = [];
    const { client, check } = await open(binding, era, { onlog: (log) => levels.push(log.level) });
    if (era === 'legacy') {
      // 2025: every message until the client sets a level.
      await client.callTool({ name: 'test_tool_with_logging' });
      expect(levels).toEqual(['info', 'info', 'info']);
      await client.setLoggingLevel('warning');
    } else {
      // 2026-07-28: none without a level on the request, then as asked.
      await client.callTool({ name: 'test_tool_with_logging' });
      expect(levels).toEqual([]);
      await client.callTool({ name: 'test_tool_with_logging' }, { logLevel: 'info' });
      expect(levels).toEqual(['info', 'info', 'info']);
    }
    await client.callTool(
      { name: 'test_tool_with_logging' },
      era === 'modern' ? { logLevel: 'warning' } : {},
    );
    expect(levels).toHaveLength(3);
    expect(check.problems()).toEqual([]);
  });
});

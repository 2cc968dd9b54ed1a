import { McpClient } from '@mcpkit/client';
import type { Transport } from '@mcpkit/jsonrpc';
import type {
  CreateMessageRequestParams,
  ElicitRequestParams,
  LoggingMessageParams,
} from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { startEverythingHttp } from '../support/everything-http.js';
import { SchemaCheckedTransport } from '../support/schema-check.js';

/** Waits for `check` to hold, polling; fails with `what` after `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const transports: Record<
  string,
  () => Promise<{ transport: Transport; stop: () => Promise<void> }>
> = {
  stdio: async () => ({
    transport: new StdioTransport({
      command: process.execPath,
      args: [everythingEntry, 'stdio'],
      name: 'everything',
    }),
    stop: async () => {},
  }),
  'streamable-http': async () => {
    const server = await startEverythingHttp('streamableHttp');
    return {
      transport: new StreamableHttpTransport({ url: `${server.base}/mcp`, name: 'everything' }),
      stop: () => server.close(),
    };
  },
};

describe.each(Object.keys(transports))('server-everything, every feature over %s', (kind) => {
  const sampled: CreateMessageRequestParams[] = [];
  const elicited: ElicitRequestParams[] = [];
  const logs: LoggingMessageParams[] = [];
  const updated: string[] = [];
  let client: McpClient;
  let checked: SchemaCheckedTransport;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const made = await transports[kind]!();
    stop = made.stop;
    client = new McpClient({
      name: 'everything',
      handlers: {
        roots: () => [{ uri: 'file:///tmp/mcpkit-project', name: 'project' }],
        sampling: (params) => {
          sampled.push(params);
          return {
            role: 'assistant',
            content: { type: 'text', text: 'sampled by the host' },
            model: 'test-model',
            stopReason: 'endTurn',
          };
        },
        elicitation: (params) => {
          elicited.push(params);
          return { action: 'accept', content: { name: 'Ada' } };
        },
        applyElicitationDefaults: true,
      },
      onlog: (p) => logs.push(p),
      onresourceupdated: (uri) => updated.push(uri),
    });
    checked = new SchemaCheckedTransport(made.transport);
    await client.connect(checked);
  });
  afterAll(async () => {
    await client?.close();
    await stop?.();
  });

  it('declares capabilities from the handlers, and the server offers the tools that need them', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'get-roots-list',
        'trigger-sampling-request',
        'trigger-elicitation-request',
      ]),
    );
  });

  it('roots are requested and answered', async () => {
    const r = await client.callTool({ name: 'get-roots-list' });
    expect(JSON.stringify(r.content)).toContain('file:///tmp/mcpkit-project');
  });

  it('a sampling request is answered by the host', async () => {
    const r = await client.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'Say hi', maxTokens: 50 },
    });
    expect(sampled.at(-1)!.messages[0]!.content).toMatchObject({ type: 'text' });
    expect(JSON.stringify(r.content)).toContain('sampled by the host');
  });

  it('an elicitation request is answered, with the schema defaults filled in', async () => {
    const r = await client.callTool({ name: 'trigger-elicitation-request' });
    expect(elicited).toHaveLength(1);
    const text = JSON.stringify(r.content);
    expect(text).toContain('Ada');
    // Fields the user left out came from the requested schema's defaults.
    expect(text).toContain('It was a dark and stormy night.');
  });

  it('progress during a long-running operation', async () => {
    const progress: number[] = [];
    await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      { onprogress: (p) => progress.push(p.progress), resetTimeoutOnProgress: true },
    );
    expect(progress).toEqual([1, 2, 3]);
  });

  it('logging at a set level', async () => {
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'toggle-simulated-logging' });
    await until(() => logs.length > 0, 'a log message');
    await client.callTool({ name: 'toggle-simulated-logging' });
    expect(logs[0]!.level).toMatch(/debug|info|notice|warning|error|critical|alert|emergency/);
  });

  it('resource subscription updates', async () => {
    const uri = (await client.listResources()).find((r) =>
      r.uri.startsWith('demo://resource/static/document/'),
    )!.uri;
    await client.subscribeResource(uri);
    await client.callTool({ name: 'toggle-subscriber-updates' });
    await until(() => updated.includes(uri), `an update of ${uri}`);
    await client.callTool({ name: 'toggle-subscriber-updates' });
    await client.unsubscribeResource(uri);
  });

  it('completions, resource templates, structured content and resource links', async () => {
    const c = await client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'department', value: 'E' },
    );
    expect(c.completion.values).toEqual(['Engineering']);
    const withContext = await client.complete(
      { type: 'ref/prompt', name: 'completable-prompt' },
      { name: 'name', value: '' },
      { arguments: { department: 'Sales' } },
    );
    expect(withContext.completion.values).toEqual(['David', 'Eve', 'Frank']);
    expect((await client.listResourceTemplates()).length).toBeGreaterThan(0);
    const structured = await client.callTool({
      name: 'get-structured-content',
      arguments: { location: 'Chicago' },
    });
    expect(structured.structuredContent).toMatchObject({
      temperature: expect.any(Number),
      conditions: expect.any(String),
    });
    const links = await client.callTool({ name: 'get-resource-links', arguments: { count: 3 } });
    expect(links.content.filter((b) => b.type === 'resource_link')).toHaveLength(3);
  });

  it('every message the client sent validates against the schema of its revision', () => {
    // The 2026-07-28 probe went out under 2026-07-28; everything after, under 2025-11-25.
    expect(checked.sent[0]!.version).toBe('2026-07-28');
    expect(checked.sent.slice(1).every((s) => s.version === '2025-11-25')).toBe(true);
    expect(checked.sent.length).toBeGreaterThan(15);
    expect(checked.problems()).toEqual([]);
  });
});

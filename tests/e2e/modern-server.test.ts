import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import type { JsonRpcMessage, Transport } from '@mcpkit/jsonrpc';
import type { ElicitRequestParams } from '@mcpkit/protocol';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import { startEverythingHttp } from '../support/everything-http.js';
import { SchemaCheckedTransport } from '../support/schema-check.js';

/**
 * Against a real 2026-07-28 server: the official SDK v2 (@modelcontextprotocol/server
 * 2.4.0) in tests/fixtures/modern-server.mjs, over stdio and Streamable HTTP.
 */
const fixture = fileURLToPath(new URL('../fixtures/modern-server.mjs', import.meta.url));

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The fixture over HTTP on a free port; `stop()` ends it. */
async function startHttp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [fixture, 'http'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${stderr}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const kinds: Record<string, () => Promise<{ transport: Transport; stop: () => Promise<void> }>> = {
  stdio: async () => ({
    transport: new StdioTransport({ command: process.execPath, args: [fixture, 'stdio'] }),
    stop: async () => {},
  }),
  'streamable-http': async () => {
    const server = await startHttp();
    return { transport: new StreamableHttpTransport({ url: server.url }), stop: server.stop };
  },
};

const sentOf = (checked: SchemaCheckedTransport, method: string) =>
  checked.sent
    .map((s) => s.message)
    .filter(
      (m): m is JsonRpcMessage & { id: number; params: Record<string, any> } =>
        'method' in m && m.method === method,
    );

describe.each(Object.keys(kinds))('a 2026-07-28 server (SDK v2) over %s', (kind) => {
  const elicited: ElicitRequestParams[] = [];
  const changed: string[] = [];
  const updated: string[] = [];
  let client: McpClient;
  let checked: SchemaCheckedTransport;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const made = await kinds[kind]!();
    stop = made.stop;
    checked = new SchemaCheckedTransport(made.transport);
    client = new McpClient({
      name: 'modern',
      eraCache: false,
      handlers: {
        elicitation: (params) => {
          elicited.push(params);
          return { action: 'accept', content: { confirm: true } };
        },
        sampling: () => ({
          role: 'assistant',
          content: { type: 'text', text: 'Paris' },
          model: 'test-model',
          stopReason: 'endTurn',
        }),
        roots: () => [{ uri: 'file:///work/project', name: 'project' }],
      },
      onlistchanged: (list) => changed.push(list),
      onresourceupdated: (uri) => updated.push(uri),
    });
    await client.connect(checked);
  });
  afterAll(async () => {
    await client?.close();
    await stop?.();
  });

  it('discovers the server: era, version, identity and capabilities, without initialize', () => {
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect(client.serverInfo).toEqual({ name: 'modern-fixture', version: '2.4.0-test' });
    expect(client.instructions).toBe('A 2026-07-28 test server.');
    expect(client.serverCapabilities?.tools).toEqual({ listChanged: true });
    expect(client.discoverResult?.supportedVersions).toContain('2026-07-28');
    expect(sentOf(checked, 'initialize')).toEqual([]);
    const [discover] = sentOf(checked, 'server/discover');
    expect(discover!.params._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'mcpkit' },
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: { form: {} },
        sampling: {},
        roots: { listChanged: true },
      },
    });
  });

  it('lists tools once while the ttl holds, and again when asked for a fresh list', async () => {
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(['add', 'deploy', 'consult', 'touch']);
    await client.listTools();
    expect(sentOf(checked, 'tools/list')).toHaveLength(1);
    await client.listTools({ fresh: true });
    expect(sentOf(checked, 'tools/list')).toHaveLength(2);
  });

  it('calls a tool, with the request metadata on the call', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    const [call] = sentOf(checked, 'tools/call');
    expect(call!.params._meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
  });

  it('an elicitation through a multi round-trip request: asked once, retried with the answer and the state', async () => {
    const result = await client.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    expect(result.content).toEqual([
      { type: 'text', text: 'deployed to prod (state deploy:prod)' },
    ]);
    expect(elicited.map((e) => e.message)).toEqual(['Deploy to prod?']);
    const calls = sentOf(checked, 'tools/call').filter((c) => c.params.name === 'deploy');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.params.inputResponses).toBeUndefined();
    expect(calls[1]!.params.inputResponses).toEqual({
      confirm: { action: 'accept', content: { confirm: true } },
    });
    expect(calls[1]!.params.requestState).toBe('deploy:prod');
    expect(calls[1]!.id).not.toBe(calls[0]!.id);
  });

  it('sampling and roots in one round, answered by the same handlers as legacy requests', async () => {
    const result = await client.callTool({
      name: 'consult',
      arguments: { question: 'Capital of France?' },
    });
    expect(result.content).toEqual([
      { type: 'text', text: 'model said Paris; roots file:///work/project' },
    ]);
    const retry = sentOf(checked, 'tools/call').filter((c) => c.params.name === 'consult')[1]!;
    expect(Object.keys(retry.params.inputResponses).sort()).toEqual(['model', 'roots']);
    expect(retry.params.requestState).toBeUndefined();
  });

  it('reads a resource and gets a prompt', async () => {
    const read = await client.readResource('fixture://config');
    expect(read.contents).toEqual([
      { uri: 'fixture://config', mimeType: 'text/plain', text: 'debug=true' },
    ]);
    const prompt = await client.getPrompt('greet', { name: 'Ada' });
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Say hello to Ada' });
  });

  it('subscriptions/listen: acknowledged, then a change notification tagged with its id; the cached list is dropped', async () => {
    const subscription = await client.listen({
      toolsListChanged: true,
      resourceSubscriptions: ['fixture://config'],
    });
    expect(subscription.notifications).toMatchObject({ toolsListChanged: true });
    const seen: JsonRpcMessage[] = [];
    const before = sentOf(checked, 'tools/list').length;
    const previous = checked.onmessage;
    checked.onmessage = (m, extra) => {
      seen.push(m);
      previous?.(m, extra);
    };
    await client.callTool({ name: 'touch', arguments: {} });
    await until(() => changed.includes('tools'), 'notifications/tools/list_changed');
    const tagged = seen.find(
      (m) => 'method' in m && m.method === 'notifications/tools/list_changed',
    ) as { params: { _meta: Record<string, unknown> } } | undefined;
    expect(tagged?.params._meta['io.modelcontextprotocol/subscriptionId']).toBeDefined();
    await client.listTools();
    expect(sentOf(checked, 'tools/list').length).toBe(before + 1);
    if (kind === 'streamable-http') {
      // (The SDK's stdio entry does not route resources/updated to listeners.)
      await until(() => updated.includes('fixture://config'), 'notifications/resources/updated');
    }
    await subscription.close();
    await subscription.closed;
    checked.onmessage = previous;
  });

  it('the log level rides on each request', async () => {
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    const last = sentOf(checked, 'tools/call').at(-1)!;
    expect(last.params._meta['io.modelcontextprotocol/logLevel']).toBe('debug');
    expect(sentOf(checked, 'logging/setLevel')).toEqual([]);
  });

  it('every message sent validates against the 2026-07-28 schema', () => {
    expect(checked.sent.length).toBeGreaterThan(10);
    expect(checked.sent.every((s) => s.version === '2026-07-28')).toBe(true);
    expect(checked.problems()).toEqual([]);
  });
});

describe('era negotiation against real servers', () => {
  it('a version the server does not speak is answered with -32022, and the client retries with one it lists', async () => {
    const client = new McpClient({
      eraCache: false,
      supportedVersions: ['2027-01-01', '2026-07-28', '2025-11-25'],
    });
    const transport = new StdioTransport({ command: process.execPath, args: [fixture, 'stdio'] });
    await client.connect(transport);
    expect(client.era).toBe('modern');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect((await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).content).toEqual([
      { type: 'text', text: '3' },
    ]);
    await client.close();
  });

  it('pinned to the legacy era, the same dual-era server is spoken to through initialize', async () => {
    const checked = new SchemaCheckedTransport(
      new StdioTransport({ command: process.execPath, args: [fixture, 'stdio'] }),
    );
    const client = new McpClient({ era: 'legacy' });
    await client.connect(checked);
    expect(client.era).toBe('legacy');
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(sentOf(checked, 'server/discover')).toEqual([]);
    expect((await client.callTool({ name: 'add', arguments: { a: 4, b: 4 } })).content).toEqual([
      { type: 'text', text: '8' },
    ]);
    await client.close();
    expect(checked.problems()).toEqual([]);
  });

  it('a legacy server (server-everything) is detected on stdio by the probe, and the handshake follows', async () => {
    const checked = new SchemaCheckedTransport(
      new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'] }),
    );
    const client = new McpClient({ eraCache: false });
    await client.connect(checked);
    expect(client.era).toBe('legacy');
    expect(
      checked.sent.map((s) => ('method' in s.message ? s.message.method : 'response')),
    ).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    await client.close();
  });

  it('pinned to 2026-07-28, a legacy server is a clear error, not a silent downgrade', async () => {
    const client = new McpClient({ name: 'old', protocolVersion: '2026-07-28', eraCache: false });
    const error = await client
      .connect(new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'] }))
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /server "old": the server did not answer "server\/discover" as a 2026-07-28 server does/,
    );
  });

  it('the era learned of an HTTP endpoint is cached: the next client to a legacy server skips the probe', async () => {
    const server = await startEverythingHttp('streamableHttp');
    const url = `${server.base}/mcp`;
    try {
      const cache = new Map();
      const first = new SchemaCheckedTransport(new StreamableHttpTransport({ url }));
      const a = new McpClient({ eraCache: cache });
      await a.connect(first);
      await a.close();
      expect(sentOf(first, 'server/discover')).toHaveLength(1);
      expect(cache.get(url)).toEqual({ era: 'legacy', version: '2025-11-25' });
      const second = new SchemaCheckedTransport(new StreamableHttpTransport({ url }));
      const b = new McpClient({ eraCache: cache });
      await b.connect(second);
      expect(b.era).toBe('legacy');
      expect(sentOf(second, 'server/discover')).toHaveLength(0);
      await b.close();
      expect([...first.problems(), ...second.problems()]).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('the schema check itself', () => {
  it('flags a message its revision does not allow, and passes one it does', async () => {
    const sink: Transport = {
      start: async () => {},
      send: async () => {},
      close: async () => {},
    };
    const checked = new SchemaCheckedTransport(sink);
    checked.setProtocolVersion('2026-07-28');
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    await checked.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'x', _meta: meta },
    });
    await checked.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: meta } });
    await checked.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'logging/setLevel',
      params: { level: 'debug' },
    });
    await checked.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} });
    const problems = checked.problems();
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^tools\/call \(2026-07-28 CallToolRequest\)/);
    expect(problems[1]).toBe('logging/setLevel: revision 2026-07-28 has no such method');
    expect(problems[2]).toMatch(/^tools\/list \(2026-07-28 ListToolsRequest\)/);
  });
});

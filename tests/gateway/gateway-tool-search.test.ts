import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nameAll, ToolIndex } from '@mcpkit/gateway';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { everythingEntry } from '../support/everything.js';
import {
  faultServer,
  gatewayArgs,
  type HttpGateway,
  resultText,
  startHttpGateway,
} from './gateway-process.js';

/**
 * `mcpkit serve --search` (the built CLI, a real child process) in front of
 * server-everything and an MCP Apps fixture, with the official SDK v1 and v2 clients over
 * stdio and Streamable HTTP: exactly two tools listed, a search that finds a backend's
 * tool with its schema, a call through `call_tool` that gets the backend's own result.
 * And the recall of the search over the real tool lists of bench/tool-search.
 */
const appServer = fileURLToPath(new URL('../fixtures/app-server.mjs', import.meta.url));
const servers = {
  everything: { command: process.execPath, args: [everythingEntry, 'stdio'] },
  app: { command: process.execPath, args: [appServer, 'app'] },
};
/** Over stdio, initialize is answered once every backend is connected and listed. */
const SETTLED = ['--backend-wait-ms', '120000'];
const TOKEN = 'gateway-search-token-0123456789abcdef';
const auth = { Authorization: `Bearer ${TOKEN}` };
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../bench/tool-search/${name}`, import.meta.url), 'utf8'));

interface Found {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}
type AnyClient = ClientV1 | ClientV2;
const call = (client: AnyClient, name: string, args: Record<string, unknown>) =>
  (client as ClientV1).callTool({ name, arguments: args }) as Promise<{
    content: unknown;
    structuredContent?: { tools: Found[] };
    isError?: boolean;
  }>;
const search = async (client: AnyClient, query: string, limit?: number) =>
  (await call(client, 'search_tools', limit === undefined ? { query } : { query, limit }))
    .structuredContent!.tools;

/** What server-everything itself lists for get-sum (captured from the same version). */
const everythingSum = (
  (fixture('tools.json') as { servers: unknown }).servers as Array<{
    server: string;
    tools: Array<{ name: string }>;
  }>
)
  .find((s) => s.server === 'everything')!
  .tools.find((t) => t.name === 'get-sum') as unknown as {
  inputSchema: unknown;
  description: string;
};

let http: HttpGateway;
const opened: AnyClient[] = [];
const homes: Array<() => void> = [];
beforeAll(async () => {
  http = await startHttpGateway(servers, ['--search', '--token', TOKEN]);
}, 60_000);
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
});
afterAll(async () => {
  await http?.close();
  for (const cleanup of homes.splice(0)) cleanup();
});

/** A client of each kind, connected to the search-mode gateway. */
async function connect(kind: string): Promise<AnyClient> {
  const info = { name: kind, version: '1.0.0' };
  let client: AnyClient;
  if (kind.endsWith('stdio')) {
    const { args, env, cleanup } = gatewayArgs(servers, ['--search', ...SETTLED]);
    homes.push(cleanup);
    const options = { command: process.execPath, args, env: env as Record<string, string> };
    client = kind.startsWith('v1') ? new ClientV1(info) : new ClientV2(info);
    await client.connect(
      (kind.startsWith('v1') ? new StdioV1(options) : new StdioV2(options)) as never,
    );
  } else if (kind.startsWith('v1')) {
    client = new ClientV1(info);
    await client.connect(new HttpV1(http.url, { requestInit: { headers: auth } }));
  } else {
    client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new HttpV2(http.url, { requestInit: { headers: auth } }) as never);
  }
  opened.push(client);
  return client;
}

/** Asks again until `check` holds (the backend's list change reaches the index after a debounce). */
async function until<T>(ask: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await ask();
    if (check(value)) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('mcpkit serve --search with the official SDK clients', () => {
  it.each(['v1-stdio', 'v2-stdio', 'v1-http', 'v2-http'])(
    '%s: lists exactly the two tools, finds a backend tool with its schema, calls it',
    async (kind) => {
      const client = await connect(kind);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['call_tool', 'search_tools']);

      const found = await search(client, 'add two numbers');
      expect(found.length).toBeGreaterThan(0);
      expect(found.length).toBeLessThanOrEqual(5);
      const sum = found.find((t) => t.name === 'everything__get-sum');
      expect(sum).toEqual(
        expect.objectContaining({
          description: everythingSum.description,
          inputSchema: everythingSum.inputSchema,
        }),
      );

      const result = await call(client, 'call_tool', {
        name: 'everything__get-sum',
        arguments: { a: 20, b: 22 },
      });
      expect(resultText(result)).toBe('The sum of 20 and 22 is 42.');
      // The same result a direct tools/call by the served name gets.
      expect(result).toEqual(await call(client, 'everything__get-sum', { a: 20, b: 22 }));
    },
    60_000,
  );

  it('limit bounds the results; an unknown name fails as a direct call does (-32602)', async () => {
    const client = await connect('v1-http');
    expect(await search(client, 'tool', 2)).toHaveLength(2);
    const direct = await call(client, 'no_such_tool', {}).catch((e: { code?: number }) => e);
    const viaCall = await call(client, 'call_tool', { name: 'no_such_tool' }).catch(
      (e: { code?: number }) => e,
    );
    expect((direct as { code?: number }).code).toBe(-32602);
    expect((viaCall as { code?: number }).code).toBe(-32602);
    expect(String(viaCall)).toContain('no_such_tool');
  });

  it("progress of a call through call_tool reaches the client (the backend's notifications)", async () => {
    const client = (await connect('v1-stdio')) as ClientV1;
    const progress: number[] = [];
    const result = await client.callTool(
      {
        name: 'call_tool',
        arguments: {
          name: 'everything__trigger-long-running-operation',
          arguments: { duration: 0.3, steps: 3 },
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(resultText(result)).toContain('Long running operation');
    // The backend's steps, in order (the last may come after the result and be dropped by
    // the client, as for a call by the served name).
    expect(progress.length).toBeGreaterThan(0);
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
  });

  it('cancellation of a call through call_tool reaches the backend (notifications/cancelled for its request)', async () => {
    const { args, env, cleanup } = gatewayArgs(
      { slow: { command: process.execPath, args: [faultServer, 'cancel-log'] } },
      ['--search', ...SETTLED],
    );
    homes.push(cleanup);
    const client = new ClientV1({ name: 'cancel', version: '1.0.0' });
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
    opened.push(client);
    const controller = new AbortController();
    const running = client.callTool(
      { name: 'call_tool', arguments: { name: 'slow__wait' } },
      undefined,
      { signal: controller.signal },
    );
    // One turn of the event loop: the request has been written to the gateway's stdin.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('the user pressed stop'));
    await expect(running).rejects.toThrow('the user pressed stop');
    // The cancellation went out before this call on the same pipe, so the backend has it.
    const log = JSON.parse(
      resultText(await call(client, 'call_tool', { name: 'slow__cancelled' })),
    ) as { cancelled: unknown[]; waiting: unknown[] };
    expect(log.cancelled).toHaveLength(1);
    expect(log.waiting).toEqual([]);
  });

  it('the index follows the backend: a tool added with list_changed is found and called', async () => {
    const client = await connect('v2-stdio');
    const before = await search(client, 'translate a text into French');
    expect(before.map((t) => t.name)).not.toContain('app__translate_text');
    expect(resultText(await call(client, 'call_tool', { name: 'app__learn_tool' }))).toBe(
      'app: learned',
    );
    const after = await until(
      () => search(client, 'translate a text into French'),
      (found) => found.some((t) => t.name === 'app__translate_text'),
    );
    expect(after[0]!.name).toBe('app__translate_text');
    const translated = await call(client, 'call_tool', {
      name: 'app__translate_text',
      arguments: { text: 'hello', language: 'French' },
    });
    expect(resultText(translated)).toBe('app: hello in French');
    // Still the two tools only.
    expect((await client.listTools()).tools).toHaveLength(2);
  });

  it('MCP Apps: an app-only tool is never a search result nor called by call_tool, but its view calls it', async () => {
    const client = await connect('v1-http');
    const found = await search(client, 'reload the dashboard figures', 20);
    const names = found.map((t) => t.name);
    expect(names).toContain('app__open_dashboard');
    expect(names).not.toContain('app__refresh_dashboard_data');
    const refused = await call(client, 'call_tool', { name: 'app__refresh_dashboard_data' }).catch(
      (e: { code?: number }) => e,
    );
    expect((refused as { code?: number }).code).toBe(-32602);
    // The App's view calls it with tools/call, by its server's own name or the served one.
    expect(resultText(await call(client, 'refresh_dashboard_data', {}))).toBe('app: refreshed');
    expect(resultText(await call(client, 'app__refresh_dashboard_data', {}))).toBe(
      'app: refreshed',
    );
  });
});

describe('tool search recall over real tools (bench/tool-search)', () => {
  it('the expected tool is in the top 5 for at least 90 % of the queries', () => {
    const { servers: lists } = fixture('tools.json') as {
      servers: Array<{ server: string; tools: Array<{ name: string }> }>;
    };
    const { queries } = fixture('queries.json') as {
      queries: Array<{ query: string; expected: string[] }>;
    };
    const pairs = lists.flatMap((s) =>
      s.tools.map((tool) => ({ server: s.server, item: tool.name, tool })),
    );
    const { names } = nameAll(pairs, { separator: '__', prefix: true });
    const byPair = new Map(pairs.map((p) => [`${p.server}\u0000${p.item}`, p.tool]));
    const index = new ToolIndex();
    index.replace(
      [...names].map(([name, pair]) => ({
        ...byPair.get(`${pair.server}\u0000${pair.item}`)!,
        name,
      })),
    );
    expect(index.size).toBeGreaterThanOrEqual(300);
    expect(queries.length).toBeGreaterThanOrEqual(30);
    // Every expected tool exists in the fixture: a query cannot count against a missing tool.
    for (const q of queries) for (const e of q.expected) expect(names.has(e), e).toBe(true);
    const hits = queries.filter(({ query, expected }) =>
      index.search(query, 5).some((t) => expected.includes(t.name)),
    );
    expect(hits.length / queries.length).toBeGreaterThanOrEqual(0.9);
  });
});

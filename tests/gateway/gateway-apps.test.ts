import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolFilter } from '@mcpkit/gateway';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AppServers, appServers } from '../apps/app-servers.js';
import { gatewayArgs, resultText } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * MCP Apps through the gateway — `mcpkit serve` over stdio (the built CLI, a real child
 * process) and `@mcpkit/gateway` in-process over HTTP — in front of two instances of an Apps fixture (tests/fixtures/app-server.mjs, SDK v1 over stdio): a tool's
 * `_meta.ui` (resourceUri, visibility, keys the gateway does not know) passes through as the
 * backend sent it, the `ui://` view is read from its backend, and the view's calls by its
 * server's own tool names reach that server when the name is unique, and are refused, naming
 * the candidates, when it is not.
 */
const appServer = fileURLToPath(new URL('../fixtures/app-server.mjs', import.meta.url));
const servers = {
  a: { command: process.execPath, args: [appServer, 'a'] },
  b: { command: process.execPath, args: [appServer, 'b'] },
};
/** Over stdio, initialize is answered once every backend is connected and listed. */
const SETTLED = ['--backend-wait-ms', '120000'];
const TOKEN = 'gateway-apps-token-0123456789abcdef';
const auth = { Authorization: `Bearer ${TOKEN}` };

let http: InProcessGateway;
const opened: Array<{ close(): Promise<void> }> = [];
const homes: Array<() => void> = [];
beforeAll(async () => {
  // b's refresh_dashboard_data is left out: the name is then unique among the served tools.
  http = await startInProcessHttpGateway(servers, {
    token: TOKEN,
    filter: toolFilter(['!b/refresh_*']),
  });
}, 60_000);
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
});
afterAll(async () => {
  await http?.close();
  for (const cleanup of homes.splice(0)) cleanup();
});

async function direct(label: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'direct', version: '1.0.0' });
  await client.connect(
    new StdioV1({ command: process.execPath, args: [appServer, label], stderr: 'ignore' }),
  );
  opened.push(client);
  return client;
}

async function viaStdio(extra: string[] = []): Promise<ClientV1> {
  const { args, env, cleanup } = gatewayArgs(servers, [...SETTLED, ...extra]);
  homes.push(cleanup);
  const client = new ClientV1({ name: 'apps-host', version: '1.0.0' });
  await client.connect(
    new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
  );
  opened.push(client);
  return client;
}

async function viaHttp(): Promise<ClientV2> {
  const client = new ClientV2({ name: 'apps-host', version: '2.0.0' });
  await client.connect(new HttpV2(http.url, { requestInit: { headers: auth } }) as never);
  opened.push(client);
  return client;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: { code?: number; message?: string; data?: unknown }) => e,
  );

describe('MCP Apps through the gateway', () => {
  it("a tool's _meta.ui and visibility pass through as the backend sent them (same JSON, same key order)", async () => {
    const own = (await (await direct('a')).listTools()).tools;
    const gateway = await viaStdio();
    const served = (await gateway.listTools()).tools;
    for (const name of ['open_dashboard', 'refresh_dashboard_data']) {
      const mine = own.find((t) => t.name === name)!;
      const theirs = served.find((t) => t.name === `a__${name}`)!;
      expect(JSON.stringify(theirs._meta)).toBe(JSON.stringify(mine._meta));
    }
    const open = served.find((t) => t.name === 'a__open_dashboard')!;
    expect(open._meta).toEqual({
      ui: {
        visibility: ['model', 'app'],
        resourceUri: 'ui://a/dashboard.html',
        'x-fixture': { nested: [1, 'two'] },
      },
      'ui/resourceUri': 'ui://a/dashboard.html',
    });
    expect(served.find((t) => t.name === 'a__refresh_dashboard_data')!._meta).toEqual({
      ui: { resourceUri: 'ui://a/dashboard.html', visibility: ['app'] },
    });
  });

  it('the ui:// view is listed with its _meta and read from its own backend, byte for byte', async () => {
    const mine = await (await direct('b')).readResource({ uri: 'ui://b/dashboard.html' });
    const client = await viaHttp();
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === 'ui://b/dashboard.html')).toEqual(
      expect.objectContaining({
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { prefersBorder: true } },
      }),
    );
    const read = await client.readResource({ uri: 'ui://b/dashboard.html' });
    expect(JSON.stringify(read.contents)).toBe(JSON.stringify(mine.contents));
    expect((read.contents[0] as { text: string }).text).toContain('b dashboard');
  });

  it.each(['stdio', 'http'] as const)(
    "%s: a call by a backend's own name reaches the one backend that has it",
    async (face) => {
      const client =
        face === 'stdio' ? await viaStdio(['--tools', '!b/refresh_*']) : await viaHttp();
      const call = (name: string, args: Record<string, unknown> = {}) =>
        (client as ClientV1).callTool({ name, arguments: args });
      expect(resultText(await call('only_in_a'))).toBe('a: only');
      expect(resultText(await call('only_in_b'))).toBe('b: only');
      // Unique among the served tools once b's is filtered out.
      expect(resultText(await call('refresh_dashboard_data'))).toBe('a: refreshed');
      // The served names still work.
      expect(resultText(await call('b__echo', { text: 'hi' }))).toBe('b: hi');
    },
  );

  it.each(['stdio', 'http'] as const)(
    '%s: a call by a name two backends have is refused, naming both candidates',
    async (face) => {
      const client = face === 'stdio' ? await viaStdio() : await viaHttp();
      const error = await failure(
        (client as ClientV1).callTool({ name: 'open_dashboard', arguments: { week: 3 } }),
      );
      expect(error?.code).toBe(-32602);
      expect(error?.message).toContain('"a" as "a__open_dashboard"');
      expect(error?.message).toContain('"b" as "b__open_dashboard"');
      // A name no backend has stays an unknown tool.
      const unknown = await failure((client as ClientV1).callTool({ name: 'nope', arguments: {} }));
      expect(unknown?.code).toBe(-32602);
      expect(unknown?.message).toContain('Unknown tool');
    },
  );
});

/**
 * server-pdf (from npm) and the ui-probe fixture behind `mcpkit serve` over stdio: the pdf
 * view's own calls (`read_pdf_bytes`, app-only) by the server's tool name reach server-pdf;
 * a model-only tool (`model_only`, visibility ["model"]) is not callable by its backend name.
 */
describe('MCP Apps through the gateway: server-pdf', () => {
  const probe = fileURLToPath(new URL('../fixtures/ui-probe-server.mjs', import.meta.url));
  let apps: AppServers;
  let client: ClientV1;
  beforeAll(async () => {
    apps = appServers();
    const { args, env, cleanup } = gatewayArgs(
      { pdf: apps.mcpServers.pdf, probe: { command: process.execPath, args: [probe] } },
      SETTLED,
    );
    homes.push(cleanup);
    client = new ClientV1({ name: 'apps-host', version: '1.0.0' });
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    apps?.cleanup();
  });

  it("the view's read_pdf_bytes by the server's own name reaches server-pdf; the gate keeps model-only tools out", async () => {
    const served = (await client.listTools()).tools;
    expect(served.find((t) => t.name === 'pdf__read_pdf_bytes')?._meta).toEqual({
      ui: { visibility: ['app'] },
    });
    const bytes = await client.callTool({
      name: 'read_pdf_bytes',
      arguments: { url: apps.pdfFile, offset: 0, byteCount: 8 },
    });
    expect(bytes.isError).toBeFalsy();
    const sc = bytes.structuredContent as { bytes: string; totalBytes: number };
    expect(Buffer.from(sc.bytes, 'base64').toString('latin1')).toBe('%PDF-1.4');
    expect(sc.totalBytes).toBe(readFileSync(apps.pdfFile).length);
    // Model-only: by its served name it runs; by the backend's name it is an unknown tool.
    expect(resultText(await client.callTool({ name: 'probe__model_only', arguments: {} }))).toBe(
      JSON.stringify('model_only ran'),
    );
    const refused = await failure(client.callTool({ name: 'model_only', arguments: {} }));
    expect(refused?.code).toBe(-32602);
    expect(refused?.message).toContain('Unknown tool');
  });
});

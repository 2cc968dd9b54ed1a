import { fileURLToPath } from 'node:url';
import { resolveConfig } from '@mcpkit/config';
import {
  AppToolRefusedError,
  McpManager,
  UiResourceError,
  UnknownToolError,
  uiContentSecurityPolicy,
} from '@mcpkit/manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppServers, appServers } from './app-servers.js';

/**
 * MCP Apps in the manager, against the three App servers from npm (pdf, basic-vanillajs,
 * system-monitor over stdio) and a probe server (tests/fixtures/ui-probe-server.mjs) that
 * answers with what the host declared and sent.
 */
const probe = fileURLToPath(new URL('../fixtures/ui-probe-server.mjs', import.meta.url));

function managerFor(mcpServers: Record<string, unknown>, apps: boolean): McpManager {
  const { servers } = resolveConfig({
    sources: [{ scope: 'dynamic', source: 'apps test', value: { mcpServers } }],
  });
  return new McpManager({ servers, apps, clientInfo: { name: 'apps-test', version: '0.0.0' } });
}

let fixtures: AppServers;
let manager: McpManager;
beforeAll(async () => {
  fixtures = appServers();
  manager = managerFor(
    { ...fixtures.mcpServers, probe: { command: process.execPath, args: [probe] } },
    true,
  );
  const snapshot = await manager.connectAll();
  expect(snapshot.servers.map((s) => [s.name, s.state])).toEqual([
    ['basic', 'connected'],
    ['monitor', 'connected'],
    ['pdf', 'connected'],
    ['probe', 'connected'],
  ]);
}, 60_000);
afterAll(async () => {
  await manager?.close();
  fixtures?.cleanup();
});

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('MCP Apps: the model-facing list and host tools', () => {
  it("tools() leaves out the app-only tools (visibility ['app']) that serverTools() lists", async () => {
    const names = (await manager.tools()).map((t) => t.name);
    const appOnly: string[] = [];
    for (const server of ['pdf', 'basic', 'monitor'])
      for (const t of await manager.serverTools(server)) {
        const visibility = (t._meta as { ui?: { visibility?: string[] } } | undefined)?.ui
          ?.visibility;
        if (visibility && !visibility.includes('model')) appOnly.push(`mcp__${server}__${t.name}`);
      }
    // pdf: read_pdf_bytes, submit_*, poll_pdf_commands, save_pdf; monitor: poll-system-stats.
    expect(appOnly.length).toBe(7);
    for (const name of appOnly) expect(names).not.toContain(name);
    expect(names).toEqual(
      expect.arrayContaining([
        'mcp__basic__get-time',
        'mcp__monitor__get-system-info',
        'mcp__pdf__display_pdf',
        'mcp__pdf__list_pdfs',
        'mcp__probe__model_only',
      ]),
    );
  });

  it('a host tool carries its _meta and the parsed ui (resourceUri, default visibility)', async () => {
    const display = (await manager.tools()).find((t) => t.name === 'mcp__pdf__display_pdf')!;
    expect(display._meta).toMatchObject({ ui: { resourceUri: 'ui://pdf-viewer/mcp-app.html' } });
    expect(display.ui).toEqual({
      resourceUri: 'ui://pdf-viewer/mcp-app.html',
      visibility: ['model', 'app'],
    });
    const plain = (await manager.tools()).find((t) => t.name === 'mcp__pdf__list_pdfs')!;
    expect(plain.ui).toBeUndefined();
  });

  it('the model cannot call an app-only tool by a host name', async () => {
    const error = await refusal(manager.callHostTool('mcp__monitor__poll-system-stats', {}));
    expect(error).toBeInstanceOf(UnknownToolError);
  });
});

describe('MCP Apps: the App-facing call path', () => {
  it("a view's call of its own server's app-only tool reaches that server", async () => {
    const result = await manager.callToolFromApp('monitor', 'poll-system-stats', {});
    expect(result.isError).toBe(false);
    expect(result.structuredContent ?? JSON.parse(result.text)).toHaveProperty('memory');
  });

  it("a call of another server's tool is refused, naming that server", async () => {
    const error = await refusal(manager.callToolFromApp('basic', 'poll-system-stats', {}));
    expect(error).toBeInstanceOf(AppToolRefusedError);
    expect(error).toMatchObject({
      code: 'MCPKIT_APP_TOOL_REFUSED',
      server: 'basic',
      reason: 'other-server',
      targetServer: 'monitor',
    });
    const byHostName = await refusal(manager.callToolFromApp('basic', 'mcp__pdf__list_pdfs', {}));
    expect(byHostName).toMatchObject({ reason: 'other-server', targetServer: 'pdf' });
  });

  it('a model-only tool (visibility ["model"]) and an unknown tool are refused', async () => {
    expect(await refusal(manager.callToolFromApp('probe', 'model_only', {}))).toMatchObject({
      name: 'AppToolRefusedError',
      reason: 'not-app-visible',
    });
    expect(await refusal(manager.callToolFromApp('probe', 'no_such_tool', {}))).toMatchObject({
      reason: 'unknown-tool',
    });
  });
});

describe('MCP Apps: through a scope() view', () => {
  it('callToolFromApp and readUiResource work for its servers, with the same gate and cache', async () => {
    const scope = manager.scope({ servers: ['basic', 'monitor'] });
    const result = await scope.callToolFromApp('monitor', 'poll-system-stats', {});
    expect(result.isError).toBe(false);
    // Another server of the view: refused, naming it.
    expect(await refusal(scope.callToolFromApp('basic', 'poll-system-stats', {}))).toMatchObject({
      reason: 'other-server',
      targetServer: 'monitor',
    });
    // A server outside the view is never named: its tool is unknown here.
    const outside = await refusal(scope.callToolFromApp('basic', 'mcp__pdf__list_pdfs', {}));
    expect(outside).toBeInstanceOf(AppToolRefusedError);
    expect(outside).toMatchObject({ reason: 'unknown-tool', targetServer: undefined });
    expect(String(outside)).not.toContain('pdf"');
    expect(await refusal(scope.callToolFromApp('pdf', 'list_pdfs', {}))).toMatchObject({
      name: 'UnknownServerError',
    });
    const view = await scope.readUiResource('basic', 'ui://get-time/mcp-app.html');
    expect(view).toBe(await manager.readUiResource('basic', 'ui://get-time/mcp-app.html'));
    expect(await refusal(scope.readUiResource('pdf', 'ui://pdf/mcp-app.html'))).toMatchObject({
      name: 'UnknownServerError',
    });
    await scope.close();
  });
});

describe('MCP Apps: views and results', () => {
  it('readUiResource gives the HTML and caches it per connection; fresh reads again', async () => {
    const view = await manager.readUiResource('basic', 'ui://get-time/mcp-app.html');
    expect(view).toMatchObject({
      server: 'basic',
      uri: 'ui://get-time/mcp-app.html',
      mimeType: 'text/html;profile=mcp-app',
    });
    expect(view.html).toMatch(/<html/i);
    expect(await manager.readUiResource('basic', 'ui://get-time/mcp-app.html')).toBe(view);
    const again = await manager.readUiResource('basic', 'ui://get-time/mcp-app.html', {
      fresh: true,
    });
    expect(again).not.toBe(view);
    expect(again.html).toBe(view.html);
    // No csp declared: the extension's restrictive default.
    expect(uiContentSecurityPolicy(view.csp)).toContain("connect-src 'none'");
  });

  it('readUiResource refuses a URI that is not ui://', async () => {
    const error = await refusal(manager.readUiResource('basic', 'file:///etc/passwd'));
    expect(error).toBeInstanceOf(UiResourceError);
    expect(error).toMatchObject({ reason: 'not-ui-uri', server: 'basic' });
  });

  it("a result keeps its _meta and structuredContent (pdf's viewUUID)", async () => {
    const result = await manager.callTool('pdf', 'display_pdf', { url: fixtures.pdfFile });
    expect(result.isError).toBe(false);
    expect(result._meta).toHaveProperty('viewUUID');
    expect(result.structuredContent).toBeDefined();
  });

  it("HostToolCallOptions._meta reaches the server as the request's _meta", async () => {
    const result = await manager.callTool(
      'probe',
      'echo_meta',
      {},
      { _meta: { 'host/trace': 'abc' } },
    );
    expect((result.structuredContent as { value: Record<string, unknown> }).value).toMatchObject({
      'host/trace': 'abc',
    });
    expect(result._meta).toEqual({ 'probe/echoed': true });
  });
});

describe('MCP Apps: the UI extension declared', () => {
  it('with apps on, servers see extensions["io.modelcontextprotocol/ui"] with the MIME types', async () => {
    const result = await manager.callTool('probe', 'client_ui', {});
    expect(JSON.parse(result.text)).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
  });

  it('without the option, nothing is declared', async () => {
    const plain = managerFor({ probe: { command: process.execPath, args: [probe] } }, false);
    try {
      await plain.connectAll();
      expect(JSON.parse((await plain.callTool('probe', 'client_ui', {})).text)).toBeNull();
    } finally {
      await plain.close();
    }
  });
});

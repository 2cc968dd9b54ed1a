import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium } from '../support/browser.js';
import { type AppServers, appServers } from './app-servers.js';
import { type AppsHost, openView, viewRpc as rpc, startAppsHost } from './apps-host.js';

/**
 * `mcpkit apps` (the built CLI, a real child process with a fresh HOME) in front of the
 * three App servers from npm and the probe server (tests/fixtures/ui-probe-server.mjs), driven
 * in Debian's headless Chromium: the page renders a view in a sandboxed iframe through the
 * official AppBridge; the view's own calls reach its server; calls of another server's
 * tool or of a model-only tool are refused; ui/open-link and ui/message reach the page.
 */
const probe = fileURLToPath(new URL('../fixtures/ui-probe-server.mjs', import.meta.url));
const artifacts = fileURLToPath(new URL('../.artifacts/apps/', import.meta.url));

let fixtures: AppServers;
let host: AppsHost;
let link: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!haveChromium()) throw new Error('Chromium is missing: run scripts/ensure-chromium.mjs');
  fixtures = appServers();
  mkdirSync(artifacts, { recursive: true });
  host = await startAppsHost({
    pdf: fixtures.mcpServers.pdf,
    basic: fixtures.mcpServers.basic,
    monitor: fixtures.mcpServers.monitor,
    probe: { command: process.execPath, args: [probe] },
  });
  link = host.link;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(link);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  fixtures?.cleanup();
});

const open = (tool: string, args?: Record<string, unknown>) => openView(page, tool, args);

describe('mcpkit apps in Chromium', () => {
  it('the link works once; without the session nothing is served', async () => {
    const again = await fetch(link);
    expect(again.status).toBe(403);
    const bare = await fetch(new URL('/', link));
    expect(bare.status).toBe(401);
    const api = await fetch(new URL('/api/tools', link), { method: 'POST' });
    expect(api.status).toBe(401);
  });

  it('the page lists the App tools of every server, however slowly each connects', async () => {
    // The list once came from a second connectAll(), which returned at once while the
    // first was still connecting: a slow server (pdf, the probe) was left out.
    await page.waitForSelector('#status:has-text("App tools")');
    const options = await page.$$eval('#tool option', (o) =>
      o.map((x) => (x as unknown as { value: string }).value),
    );
    expect(options.sort()).toEqual([
      'mcp__basic__get-time',
      'mcp__monitor__get-system-info',
      'mcp__pdf__display_pdf',
      'mcp__probe__open_probe',
    ]);
  });

  it("renders basic-vanillajs's App (screenshot saved) and the view's result arrives", async () => {
    const frame = await open('mcp__basic__get-time');
    await frame.waitForSelector('body');
    const sandbox = await page.getAttribute('iframe#app', 'sandbox');
    expect(sandbox).toBe('allow-scripts allow-forms');
    // The view shows the server time it was sent (an ISO date).
    await frame.waitForFunction(() =>
      /\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}/.test(
        (globalThis as unknown as { document: { body: { textContent: string | null } } }).document
          .body.textContent ?? '',
      ),
    );
    // Headless Chromium leaves a sandboxed (out-of-process) iframe out of a full-page
    // capture: the view is captured by its element.
    await page
      .locator('iframe#app')
      .screenshot({ path: path.join(artifacts, 'basic-vanillajs.png') });
  });

  it("the real App's own buttons: its tools/call reaches its server, ui/message and ui/open-link reach the page", async () => {
    const frame = await open('mcp__basic__get-time');
    await frame.click('text=Get Server Time');
    await page.waitForSelector('li[data-kind="app-call"]:has-text("basic/get-time ok")');
    await frame.click('text=Send Message');
    await page.waitForSelector('li[data-kind="message"]:has-text("This is message text.")');
    await frame.click('text=Open Link');
    await page.waitForSelector(
      'li[data-kind="open-link"]:has-text("https://modelcontextprotocol.io/")',
    );
  });

  it("renders server-pdf's viewer: the PDF's text appears (screenshot saved), its bytes read through the App gate", async () => {
    // pdf.js starts its worker from a data: URL, which the view's CSP has to let through.
    const frame = await open('mcp__pdf__display_pdf', { url: fixtures.pdfFile });
    // The page says what the tool takes (a person would not guess `url`).
    expect(await page.textContent('#signature')).toMatch(
      /^arguments: url\?: string, page\?: number/,
    );
    await page.waitForSelector('li[data-kind="app-call"]:has-text("pdf/read_pdf_bytes ok")');
    await frame.waitForSelector('text=Hello from mcpkit', { timeout: 30_000 });
    await page.locator('iframe#app').screenshot({ path: path.join(artifacts, 'server-pdf.png') });
  });

  it("system-monitor's view calls its own app-only tool, which reaches its server", async () => {
    await open('mcp__monitor__get-system-info');
    await page.waitForSelector('li[data-kind="app-call"]:has-text("monitor/poll-system-stats ok")');
    await page
      .locator('iframe#app')
      .screenshot({ path: path.join(artifacts, 'system-monitor.png') });
    await page.screenshot({ path: path.join(artifacts, 'host-page.png') });
  });

  it("a view calls its own app-only tool; another server's tool and a model-only tool are refused", async () => {
    const frame = await open('mcp__probe__open_probe');
    await frame.waitForSelector('#result:has-text("result: probe opened")');
    const own = await rpc(frame, 'tools/call', { name: 'probe_app_only', arguments: {} });
    expect(own.result).toMatchObject({ content: [{ type: 'text', text: 'probe_app_only ran' }] });
    const other = await rpc(frame, 'tools/call', { name: 'get-time', arguments: {} });
    expect(other.error?.message).toMatch(/belongs to server "basic"/);
    const modelOnly = await rpc(frame, 'tools/call', { name: 'model_only', arguments: {} });
    expect(modelOnly.error?.message).toMatch(/visibility leaves out "app"/);
    await page.waitForSelector(
      'li[data-kind="app-call-refused"]:has-text("probe/get-time: other-server")',
    );
    await page.waitForSelector(
      'li[data-kind="app-call-refused"]:has-text("probe/model_only: not-app-visible")',
    );
  });

  it("before the next view the page sends ui/resource-teardown and waits for the real App's answer", async () => {
    await open('mcp__basic__get-time');
    await open('mcp__probe__open_probe');
    await page.waitForSelector('li[data-kind="teardown"]:has-text("teardown: basic answered")');
  });

  it('ui/request-display-mode gets the one mode this host has; ui/update-model-context reaches the page', async () => {
    const frame = await open('mcp__probe__open_probe');
    await frame.waitForSelector('#result:has-text("result: probe opened")');
    const mode = await rpc(frame, 'ui/request-display-mode', { mode: 'fullscreen' });
    expect(mode.result).toEqual({ mode: 'inline' });
    const context = await rpc(frame, 'ui/update-model-context', {
      content: [{ type: 'text', text: 'the user picked row 3' }],
    });
    expect(context.error).toBeUndefined();
    await page.waitForSelector('li[data-kind="model-context"]:has-text("the user picked row 3")');
  });

  it('ui/open-link and ui/message from a hand-written view reach the page', async () => {
    const frame = await open('mcp__probe__open_probe');
    await frame.waitForSelector('#result:has-text("result: probe opened")');
    const opened = await rpc(frame, 'ui/open-link', { url: 'https://example.com/doc' });
    expect(opened.error).toBeUndefined();
    const said = await rpc(frame, 'ui/message', {
      role: 'user',
      content: [{ type: 'text', text: 'hello from the view' }],
    });
    expect(said.error).toBeUndefined();
    await page.waitForSelector('li[data-kind="open-link"]:has-text("https://example.com/doc")');
    await page.waitForSelector('li[data-kind="message"]:has-text("hello from the view")');
  });
});

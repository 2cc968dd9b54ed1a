import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Frame, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium } from '../support/browser.js';
import { type AppsHost, openView, startAppsHost, viewRpc } from './apps-host.js';

/**
 * What a view's resource `_meta.ui` asks of the frame, in `mcpkit apps` (the built CLI, a
 * real child process) in Debian's headless Chromium, against an @mcpkit/server App server
 * (tests/fixtures/apps-frame-server.mjs; none of the App servers from npm declares these):
 * `prefersBorder` true / false / not declared draws the frame's border and background or
 * not; a `domain` runs the view at an origin of its own (one per server and domain, apart
 * from the host page's), with the CSP it declared as the header; a domain this host cannot
 * serve is declined on the page and the view stays at an opaque origin.
 */
const fixture = fileURLToPath(new URL('../fixtures/apps-frame-server.mjs', import.meta.url));
const artifacts = fileURLToPath(new URL('../.artifacts/apps/', import.meta.url));

let host: AppsHost;
let hostOrigin: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!haveChromium()) throw new Error('Chromium is missing: run scripts/ensure-chromium.mjs');
  mkdirSync(artifacts, { recursive: true });
  host = await startAppsHost({ frame: { command: process.execPath, args: [fixture] } });
  hostOrigin = new URL(host.link).origin;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(host.link);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

/** Opens the view of `tool` and gives its frame and the response that served it. */
async function show(tool: string): Promise<{ frame: Frame; response: Response }> {
  const served = page.waitForResponse((r) => r.url().includes('/view/'));
  const frame = await openView(page, `mcp__frame__${tool}`);
  const response = await served;
  await frame.waitForSelector('#result:has-text("opened")');
  return { frame, response };
}

/** What these tests read of a page's globals (the tests' type check has no DOM library);
 * a cast only, erased before a function runs in the browser. */
interface Dom {
  self: { origin: string };
  location: { origin: string };
  window: { parent: { document: unknown } };
  document: {
    cookie: string;
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (e: { effectiveDirective: string }) => void,
      options: { once: boolean },
    ): void;
  };
  getComputedStyle(el: unknown): {
    borderTopWidth: string;
    borderTopStyle: string;
    backgroundColor: string;
  };
}

const frameStyle = () =>
  page.locator('iframe#app').evaluate((el) => {
    const s = (globalThis as unknown as Dom).getComputedStyle(el);
    return {
      width: s.borderTopWidth,
      style: s.borderTopStyle,
      background: s.backgroundColor,
    };
  });

/** The frame's origin: `self.origin` (the document's own; "null" when opaque), checked
 * against `location.origin` (its URL's) when not opaque. */
const originIn = (frame: Frame) =>
  frame.evaluate(() => {
    const { self, location } = globalThis as unknown as Dom;
    if (self.origin !== 'null' && self.origin !== location.origin)
      throw new Error(`self.origin ${self.origin} but location.origin ${location.origin}`);
    return self.origin;
  });

describe('mcpkit apps: prefersBorder', () => {
  it('prefersBorder: true draws a border and a background (screenshot saved)', async () => {
    await show('bordered');
    expect(await frameStyle()).toEqual({
      width: '1px',
      style: 'solid',
      background: 'rgb(255, 255, 255)',
    });
    expect(await page.getAttribute('iframe#app', 'data-prefers-border')).toBe('true');
    await page
      .locator('iframe#app')
      .screenshot({ path: path.join(artifacts, 'prefers-border-true.png') });
  });

  it('prefersBorder: false draws neither (screenshot saved)', async () => {
    await show('borderless');
    expect(await frameStyle()).toEqual({
      width: '0px',
      style: 'none',
      background: 'rgba(0, 0, 0, 0)',
    });
    await page
      .locator('iframe#app')
      .screenshot({ path: path.join(artifacts, 'prefers-border-false.png') });
  });

  it("declared on the resources/list entry only (the draft's other place): honoured", async () => {
    await show('listed_borderless');
    expect((await frameStyle()).width).toBe('0px');
    expect(await page.getAttribute('iframe#app', 'data-prefers-border')).toBe('false');
  });

  it('not declared: the host decides, and this one draws the border', async () => {
    await show('undeclared');
    expect((await frameStyle()).width).toBe('1px');
    expect(await page.getAttribute('iframe#app', 'data-prefers-border')).toBe('not declared');
  });
});

describe('mcpkit apps: domain', () => {
  it('a view with a domain runs at an origin of its own, with its CSP as the header', async () => {
    const { frame, response } = await show('dedicated');
    const origin = await originIn(frame);
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(origin).not.toBe(hostOrigin);
    expect(new URL(frame.url()).origin).toBe(origin);
    expect(await page.getAttribute('iframe#app', 'sandbox')).toBe(
      'allow-scripts allow-same-origin allow-forms',
    );
    expect(response.headers()['content-security-policy']).toBe(
      [
        "default-src 'none'",
        "script-src 'self' 'unsafe-inline' blob: data:",
        "worker-src 'self' blob: data:",
        "style-src 'self' 'unsafe-inline'",
        "connect-src 'self' https://api.fixture.example",
        "img-src 'self' data:",
        "font-src 'self'",
        "media-src 'self' data:",
        "frame-src 'none'",
        "object-src 'none'",
        "base-uri 'self'",
        `frame-ancestors ${hostOrigin}`,
      ].join('; '),
    );
    // This view declared prefersBorder: false as well.
    expect((await frameStyle()).width).toBe('0px');
    await expect(page.textContent('#view-origin')).resolves.toBe(
      `view origin: ${origin} (its domain "views.fixture.example")`,
    );
    expect(host.stderr()).toContain(
      `server "frame": views of domain "views.fixture.example" run at ${origin}`,
    );
    await page.locator('iframe#app').screenshot({ path: path.join(artifacts, 'domain-view.png') });
  });

  it('at its own origin the CSP holds, the page stays out of reach, and the App gate still applies', async () => {
    const { frame } = await show('dedicated');
    // The browser enforces the header: a fetch of the host page's origin is a violation.
    const violated = await frame.evaluate(async (target) => {
      const { document } = globalThis as unknown as Dom;
      const seen = new Promise<string>((resolve) =>
        document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), {
          once: true,
        }),
      );
      await fetch(`${target}/host.js`).catch(() => {});
      return seen;
    }, hostOrigin);
    expect(violated).toBe('connect-src');
    const parentDocument = await frame.evaluate(() => {
      try {
        return typeof (globalThis as unknown as Dom).window.parent.document;
      } catch (e) {
        return (e as Error).name;
      }
    });
    expect(parentDocument).toBe('SecurityError');
    const own = await viewRpc(frame, 'tools/call', { name: 'frame_app_only', arguments: {} });
    expect(own.result).toMatchObject({ content: [{ type: 'text', text: 'frame_app_only ran' }] });
    await page.waitForSelector('li[data-kind="app-call"]:has-text("frame/frame_app_only ok")');
  });

  it('one origin per domain of a server (names compared without case); another domain gets another', async () => {
    const first = await originIn((await show('dedicated')).frame);
    const again = await originIn((await show('dedicated_again')).frame);
    const other = await originIn((await show('other_domain')).frame);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(other).not.toBe(hostOrigin);
  });

  it('a domain this host cannot serve is declined on the page; the view stays opaque', async () => {
    const { frame, response } = await show('bad_domain');
    expect(await originIn(frame)).toBe('null');
    // Served from the host page's port, in an opaque origin all the same.
    expect(await frame.evaluate(() => (globalThis as unknown as Dom).location.origin)).toBe(
      hostOrigin,
    );
    expect(new URL(response.url()).origin).toBe(hostOrigin);
    expect(await page.getAttribute('iframe#app', 'sandbox')).toBe('allow-scripts allow-forms');
    expect(await page.textContent('#view-origin')).toMatch(
      /^view origin: opaque; its domain "not a host\/name" was declined: this host takes a host name/,
    );
    expect(host.stderr()).toContain('server "frame": domain "not a host/name" declined:');
  });

  it("a cookie a view sets at its domain's origin (cookies ignore ports) does not lock the page out", async () => {
    const { frame } = await show('dedicated');
    await frame.evaluate(() => {
      const { document } = globalThis as unknown as Dom;
      document.cookie = 'mcpkit_apps=forged-by-the-view; path=/api';
    });
    const jar = await page.context().cookies(`${hostOrigin}/api/view`);
    expect(jar.filter((c) => c.name === 'mcpkit_apps').map((c) => c.path)).toEqual(['/api', '/']);
    // The page's next API call carries the forged cookie first (the longer path), then its own.
    const status = await page.evaluate(() =>
      fetch('/api/tools', { method: 'POST', headers: { 'x-mcpkit-apps': '1' } }).then(
        (r) => r.status,
      ),
    );
    expect(status).toBe(200);
  });

  it('the host page may not be framed (a view at its own origin is same-site with it)', async () => {
    const res = await page.request.get(`${hostOrigin}/`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers()['x-frame-options']).toBe('DENY');
  });

  it("a domain's origin serves its views' single-use URLs and nothing else", async () => {
    const { frame } = await show('dedicated');
    const origin = await originIn(frame);
    expect((await fetch(frame.url())).status).toBe(404);
    expect((await fetch(`${origin}/`)).status).toBe(404);
    expect((await fetch(`${origin}/host.js`)).status).toBe(404);
    expect((await fetch(`${origin}/api/tools`, { method: 'POST' })).status).toBe(404);
    const port = Number(new URL(origin).port);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(
        { host: '127.0.0.1', port, path: '/', headers: { host: 'rebound.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(status).toBe(421);
  });
});

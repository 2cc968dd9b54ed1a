import { LoopbackAuthorization, MemoryTokenStore } from '@mcpkit/auth';
import { McpManager, ServerUnavailableError } from '@mcpkit/manager';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { haveChromium, launchChromium, signInAndConsent } from '../support/browser.js';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';
import { resolved } from './helpers.js';

let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
let mcp: StreamableHttpTestServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium())
    throw new Error(
      'Chromium is missing: `pnpm test` installs it (scripts/ensure-chromium.mjs, as root); or set MCPKIT_CHROMIUM',
    );
  oidc = await startOidcProvider();
  mcp = await startStreamableHttpServer({
    setup: minimalMcpServer(),
    protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
    authorize: (req) => oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
  });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await mcp?.close();
  await oidc?.close();
});

test('a server behind oidc-provider: needs-auth with an authenticate pseudo-tool, then sign-in, then connected', async () => {
  let visiting: Promise<string> | undefined;
  const manager = new McpManager({
    servers: [resolved('secure', { type: 'http', url: mcp.url })],
    auth: {
      store: new MemoryTokenStore(),
      interactive: new LoopbackAuthorization({
        open: (url) => {
          visiting = signInAndConsent(browser, url);
        },
        print: () => {},
      }),
    },
  });
  try {
    await manager.connectAll();
    const state = manager.state('secure');
    expect(state?.state).toBe('needs-auth');
    if (state?.state !== 'needs-auth') return;
    expect(state.url).toBe(mcp.url);
    expect(state.error.message).toMatch(
      /^server "secure": could not connect: .*authenticate\("secure"\)/s,
    );

    const error = await manager.callTool('secure', 'echo', {}).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect((error as Error).message).toMatch(/^server "secure" is needs-auth: /);

    const tools = await manager.tools();
    expect(tools.map((t) => t.name)).toEqual(['mcp__secure__authenticate']);
    const authenticate = tools[0]!;
    expect(authenticate.pseudo).toBe(true);
    const result = await authenticate.call({});
    expect(await visiting).toContain('You can close this tab');
    expect(result.isError).toBe(false);
    expect(result.text).toContain('Signed in to "secure"');
    expect(manager.state('secure')?.state).toBe('connected');
    const after = await manager.tools();
    expect(after.some((t) => t.pseudo)).toBe(false);
    expect(after.length).toBeGreaterThan(0);
  } finally {
    await manager.close();
  }
});

test('without interactive sign-in, authenticate() says what to do instead', async () => {
  await using manager = new McpManager({
    servers: [resolved('secure', { type: 'http', url: mcp.url })],
  });
  await manager.connectAll();
  expect(manager.state('secure')?.state).toBe('needs-auth');
  await expect(manager.authenticate('secure')).rejects.toThrow(
    /^server "secure" is needs-auth: interactive sign-in is off/,
  );
});

test('the needs-auth verdict is cached: a reload with an edited entry does not ask the server again; reconnect() does', async () => {
  await using manager = new McpManager({
    servers: [resolved('secure', { type: 'http', url: mcp.url })],
    auth: { store: new MemoryTokenStore() },
  });
  await manager.connectAll();
  const first = manager.state('secure');
  expect(first?.state).toBe('needs-auth');
  const before = mcp.requests.length;
  const result = await manager.reload([
    resolved('secure', { type: 'http', url: mcp.url, headers: { 'x-edited': '1' } }),
  ]);
  expect(result.changed).toEqual(['secure']);
  const again = manager.state('secure');
  expect(again?.state).toBe('needs-auth');
  expect(again?.state === 'needs-auth' && first?.state === 'needs-auth' && again.error).toBe(
    first?.state === 'needs-auth' ? first.error : undefined,
  );
  expect(mcp.requests.length).toBe(before);
  await manager.reconnect('secure');
  expect(mcp.requests.length).toBeGreaterThan(before);
  expect(manager.state('secure')?.state).toBe('needs-auth');
});

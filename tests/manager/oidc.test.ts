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

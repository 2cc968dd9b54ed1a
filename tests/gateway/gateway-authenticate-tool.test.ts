import { LoopbackAuthorization } from '@mcpkit/auth';
import { McpClient } from '@mcpkit/client';
import type { ElicitRequestParams } from '@mcpkit/protocol';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * Issue #23 Part 1 item 6: the `<server>__authenticate` tool, which any HTTP client may
 * call, opened a browser on the desktop of the user running the gateway. An HTTP client
 * gets the sign-in's URL instead: as a URL elicitation when it declared that mode, else in
 * the tool's result. Real parts: oidc-provider as the authorization server, a protected
 * Streamable HTTP MCP server, the in-process gateway over HTTP, mcpkit clients. The
 * desktop's browser is a recording opener (`LoopbackAuthorization`'s `open`).
 */
const TOKEN = 'authenticate-tool-token-0123456789abc';
let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
let mcp: StreamableHttpTestServer;
let gateway: InProcessGateway;
const desktop: string[] = [];
const loopback = new LoopbackAuthorization({
  open: (url) => {
    desktop.push(url);
  },
  print: () => {},
  timeoutMs: 30_000,
});
const opened: McpClient[] = [];

beforeAll(async () => {
  oidc = await startOidcProvider();
  mcp = await startStreamableHttpServer({
    setup: minimalMcpServer(),
    protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
    authorize: (req) => oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
  });
  gateway = await startInProcessHttpGateway(
    { secure: { type: 'http', url: mcp.url.toString() } },
    { token: TOKEN, interactive: loopback },
  );
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
  await loopback.close();
  await mcp?.close();
  await oidc?.close();
});

async function client(name: string, elicitation?: (p: ElicitRequestParams) => void) {
  const c = new McpClient({
    name,
    era: 'legacy',
    eraCache: false,
    ...(elicitation
      ? {
          handlers: {
            elicitation: (params) => {
              elicitation(params);
              return { action: 'decline' as const };
            },
            elicitationModes: ['form', 'url'] as const,
          },
        }
      : {}),
  });
  await c.connect(
    new StreamableHttpTransport({
      url: gateway.url,
      name,
      headers: { Authorization: `Bearer ${TOKEN}` },
    }),
  );
  opened.push(c);
  return c;
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('gateway: the authenticate tool called over HTTP', () => {
  it('a client without URL elicitation gets the sign-in URL in the result; no browser opens on the desktop', async () => {
    const c = await client('plain');
    const result = await c.callTool({ name: 'secure__authenticate', arguments: {} });
    const text = textOf(result);
    expect(text).toContain('To sign in to "secure", open this URL: ');
    const url = new URL(text.slice(text.indexOf('http')).split('\n')[0]!);
    expect(url.origin).toBe(new URL(oidc.issuer).origin);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(desktop).toEqual([]);
  });

  it('a client that declared URL elicitation is asked to open the URL; declining ends the sign-in; no browser opens', async () => {
    const asked: ElicitRequestParams[] = [];
    const c = await client('url-mode', (p) => asked.push(p));
    const result = await c.callTool({ name: 'secure__authenticate', arguments: {} });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'url' });
    const url = new URL((asked[0] as { url: string }).url);
    expect(url.origin).toBe(new URL(oidc.issuer).origin);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('was not accepted (decline)');
    expect(desktop).toEqual([]);
  });
});

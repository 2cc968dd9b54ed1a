import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';
import { backends } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * A backend behind a real authorization server (oidc-provider) with no stored tokens is
 * `needs-auth`: `@mcpkit/gateway` (in-process, over HTTP) serves its `authenticate` tool
 * beside the other backends' tools.
 */
describe('@mcpkit/gateway with a backend that needs a sign-in', () => {
  let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
  let mcp: StreamableHttpTestServer;
  let gateway: InProcessGateway;
  let client: McpClient;

  beforeAll(async () => {
    oidc = await startOidcProvider();
    mcp = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
      authorize: (req) => oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
    });
    gateway = await startInProcessHttpGateway({
      secure: { type: 'http', url: mcp.url.toString() },
      fault: backends().fault,
    });
    client = new McpClient({ name: 'gateway', era: 'legacy', eraCache: false });
    await client.connect(new StreamableHttpTransport({ url: gateway.url, name: 'gateway' }));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await mcp?.close();
    await oidc?.close();
  });

  it('lists secure__authenticate beside the other backends, and never the backend URL in its description', async () => {
    const tools = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('secure__authenticate');
    expect(names).toContain('fault__echo');
    const auth = tools.find((t) => t.name === 'secure__authenticate')!;
    expect(auth.description).toContain('secure');
    expect(JSON.stringify(auth)).not.toContain(mcp.url.toString());
  });
});

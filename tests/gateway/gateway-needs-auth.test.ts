import { McpClient } from '@mcpkit/client';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcProvider } from '../support/oidc.js';
import {
  minimalMcpServer,
  type StreamableHttpTestServer,
  startStreamableHttpServer,
} from '../support/streamable-http-server.js';
import { backends, gatewayArgs } from './gateway-process.js';

/**
 * A backend behind a real authorization server (oidc-provider) with no stored tokens is
 * `needs-auth`: the gateway serves its `authenticate` tool beside the other backends' tools.
 */
describe('mcpkit serve with a backend that needs a sign-in', () => {
  let oidc: Awaited<ReturnType<typeof startOidcProvider>>;
  let mcp: StreamableHttpTestServer;
  let client: McpClient;
  let cleanup: () => void;

  beforeAll(async () => {
    oidc = await startOidcProvider();
    mcp = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      protectedResource: { authorizationServers: [oidc.issuer], scopes: ['mcp:tools'] },
      authorize: (req) => oidc.accepts(req.headers.authorization?.replace(/^Bearer /, ''), mcp.url),
    });
    const started = gatewayArgs({
      secure: { type: 'http', url: mcp.url },
      fault: backends().fault,
    });
    cleanup = started.cleanup;
    client = new McpClient({ name: 'gateway', era: 'legacy', eraCache: false });
    await client.connect(
      new StdioTransport({
        command: process.execPath,
        args: started.args,
        env: started.env as Record<string, string>,
        name: 'gateway',
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await oidc?.close();
    cleanup?.();
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

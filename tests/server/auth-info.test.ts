import { McpClient } from '@mcpkit/client';
import type { Gateway } from '@mcpkit/gateway';
import { listenHttp } from '@mcpkit/gateway/node';
import type { AuthInfo } from '@mcpkit/jsonrpc';
import { listenStreamableHttp, McpServer } from '@mcpkit/server';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * The seam a signed-in gateway builds on: what an HTTP listener verified about a request's
 * caller reaches the tool handler as `ctx.authInfo`, in both eras, and nothing reaches it
 * when the listener verified nothing. Real HTTP on 127.0.0.1, the real client.
 */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function whoAmIServer(): McpServer {
  const server = new McpServer({ info: { name: 'who', version: '1.0.0' } });
  server.registerTool(
    'whoami',
    { description: 'Says who the listener verified', inputSchema: { type: 'object' } },
    async (_args, ctx) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify(
            ctx.authInfo === undefined
              ? null
              : {
                  kind: ctx.authInfo.kind,
                  subject: ctx.authInfo.subject,
                  scopes: ctx.authInfo.scopes,
                },
          ),
        },
      ],
    }),
  );
  cleanups.push(() => server.close());
  return server;
}

async function whoami(url: URL, version: string, headers?: Record<string, string>) {
  const client = new McpClient({ protocolVersion: version, eraCache: false });
  await client.connect(new StreamableHttpTransport({ url, ...(headers ? { headers } : {}) }));
  cleanups.push(() => client.close());
  const result = await client.callTool({ name: 'whoami' });
  return JSON.parse((result.content[0] as { text: string }).text) as unknown;
}

describe.each(['2025-11-25', '2026-07-28'])('ctx.authInfo over %s', (version) => {
  it('carries what the listener verified for this request, per request', async () => {
    const byHeader = (subject: string): AuthInfo => ({
      kind: 'jwt',
      subject,
      clientId: 'test-client',
      scopes: ['tools:read'],
      expiresAt: undefined,
      claims: { sub: subject },
      token: `token-of-${subject}`,
    });
    const listener = await listenStreamableHttp(whoAmIServer(), {
      authInfo: (req) => {
        const who = req.headers['x-test-subject'];
        return typeof who === 'string' ? byHeader(who) : undefined;
      },
    });
    cleanups.push(() => listener.close());
    expect(await whoami(listener.url, version, { 'x-test-subject': 'ada' })).toEqual({
      kind: 'jwt',
      subject: 'ada',
      scopes: ['tools:read'],
    });
    expect(await whoami(listener.url, version, { 'x-test-subject': 'grace' })).toMatchObject({
      subject: 'grace',
    });
    expect(await whoami(listener.url, version)).toBe(null);
  });

  it("is the static token's identity behind the gateway's listener", async () => {
    // The gateway listener around a plain server: the handler sees what the listener checked.
    const health = () =>
      ({ status: 'ok', servers: {} }) as unknown as ReturnType<Gateway['health']>;
    const listener = await listenHttp({ server: whoAmIServer(), health }, { token: 'sekret-123' });
    cleanups.push(() => listener.close());
    const info = (await whoami(listener.url, version, {
      authorization: 'Bearer sekret-123',
    })) as { kind: string };
    expect(info.kind).toBe('static-token');
  });
});

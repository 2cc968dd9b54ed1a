import { McpClient } from '@mcpkit/client';
import { HttpError, JsonRpcPeer, SessionExpiredError, UnauthorizedError } from '@mcpkit/jsonrpc';
import { type ReconnectEvent, StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEverythingHttp } from '../support/everything-http.js';
import { minimalMcpServer, startStreamableHttpServer } from '../support/streamable-http-server.js';
import { waitFor } from '../support/wait-for.js';

describe('Streamable HTTP against server-everything', () => {
  let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    everything = await startEverythingHttp('streamableHttp');
  });
  afterAll(() => everything?.close());

  it('connects, lists tools, calls get-sum, reads a resource, and deletes its session on close', async () => {
    const transport = new StreamableHttpTransport({
      url: `${everything.base}/mcp`,
      name: 'everything',
    });
    const client = new McpClient({ name: 'everything' });
    await client.connect(transport);
    expect(transport.sessionId).toBeTruthy();
    expect(client.protocolVersion).toBe('2025-11-25');
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(13);
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
    expect(JSON.stringify(sum.content)).toMatch(/\b5\b/);
    const resources = await client.listResources();
    const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'))!;
    expect((await client.readResource(doc.uri)).contents[0]!.uri).toBe(doc.uri);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.callTool({ name: 'echo', arguments: { message: `m${i}` } }),
      ),
    );
    expect(results.map((r) => JSON.stringify(r.content)).every((t, i) => t.includes(`m${i}`))).toBe(
      true,
    );
    await client.close();
  });
});

describe('Streamable HTTP against a test server', () => {
  it('an expired session is renewed transparently: new initialize, the call retried once', async () => {
    await using server = await startStreamableHttpServer({ setup: minimalMcpServer() });
    const client = new McpClient({ name: 'http' });
    const transport = new StreamableHttpTransport({ url: server.url, name: 'http' });
    await client.connect(transport);
    const first = transport.sessionId;
    server.expireSessions();
    const result = await client.callTool({ name: 'echo', arguments: { text: 'after expiry' } });
    expect(result.content).toEqual([{ type: 'text', text: 'after expiry' }]);
    expect(server.initializeCount).toBe(2);
    expect(transport.sessionId).not.toBe(first);
    await client.close();
  });

  it('a 404 to the standalone GET for the session renews it with no call made: new initialize, new stream, onsessionrenewed', async () => {
    await using server = await startStreamableHttpServer({ setup: minimalMcpServer() });
    let renewed!: () => void;
    const renewal = new Promise<void>((resolve) => {
      renewed = resolve;
    });
    const client = new McpClient({ name: 'http', onsessionrenewed: () => renewed() });
    const errors: Error[] = [];
    client.onerror = (error) => errors.push(error);
    const transport = new StreamableHttpTransport({
      url: server.url,
      name: 'http',
      reconnect: { initialDelayMs: 10 },
    });
    await client.connect(transport);
    const first = transport.sessionId!;
    const gets = () =>
      server.requests.filter((r) => r.method === 'GET').map((r) => r.headers['mcp-session-id']);
    await waitFor(() => gets().includes(first), 'the first standalone GET');
    server.expireSessions({ endStreams: true });
    await renewal;
    expect(server.initializeCount).toBe(2);
    expect(transport.sessionId).toBeTruthy();
    expect(transport.sessionId).not.toBe(first);
    expect(client.sessionId).toBe(transport.sessionId);
    await waitFor(
      () => gets().includes(transport.sessionId),
      'a standalone GET for the new session',
    );
    expect(errors).toEqual([]);
    await client.close();
  });

  it('the transport alone reports session expiry as a typed error naming the URL', async () => {
    await using server = await startStreamableHttpServer({ setup: minimalMcpServer() });
    const transport = new StreamableHttpTransport({ url: server.url, name: 'http' });
    await transport.start();
    await transport.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25' },
    });
    server.expireSessions();
    const error = await transport
      .send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
      .catch((e: unknown) => e);
    expect(SessionExpiredError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `server "http": POST ${server.url} → 404: session ${(error as SessionExpiredError).sessionId} expired; a new session is needed`,
    );
    await transport.close();
  });

  it('a response stream that drops is resumed with Last-Event-ID and the answer still arrives', async () => {
    await using server = await startStreamableHttpServer({
      dropFirstResponseStreamAfter: 2,
      retryMs: 20,
      setup: minimalMcpServer((peer: JsonRpcPeer) => {
        peer.setRequestHandler('slow', async (_p, ctx) => {
          for (let i = 1; i <= 4; i++) {
            await ctx.notify('notifications/message', { level: 'info', data: `step ${i}` });
            await new Promise((r) => setTimeout(r, 30));
          }
          return { done: true };
        });
      }),
    });
    const events: ReconnectEvent[] = [];
    const transport = new StreamableHttpTransport({
      url: server.url,
      name: 'http',
      onreconnect: (e) => events.push(e),
    });
    const client = new McpClient({ name: 'http' });
    const logs: unknown[] = [];
    client.onnotification = (n) => logs.push((n.params as { data: unknown }).data);
    await client.connect(transport);
    const result = await client.call(
      'slow',
      {},
      (await import('@mcpkit/protocol/schemas')).ResultSchema,
    );
    expect(result).toMatchObject({ done: true });
    expect(server.dropped).toBe(true);
    expect(events[0]).toMatchObject({ stream: 'response', attempt: 1, delayMs: 20 });
    expect(events[0]!.lastEventId).toBeTruthy();
    // Nothing lost, nothing twice.
    expect(logs).toEqual(['step 1', 'step 2', 'step 3', 'step 4']);
    await client.close();
  });

  it('JSON answers; the standalone GET stream carries server notifications', async () => {
    let serverPeer: JsonRpcPeer | undefined;
    await using server = await startStreamableHttpServer({
      responseMode: 'json',
      setup: minimalMcpServer((peer) => {
        serverPeer = peer;
      }),
    });
    const client = new McpClient({ name: 'http' });
    const got = new Promise<unknown>((resolve) => {
      client.onnotification = (n) => resolve(n);
    });
    await client.connect(new StreamableHttpTransport({ url: server.url }));
    expect((await client.listTools()).map((t) => t.name)).toEqual(['echo']);
    // The fixture attaches the standalone stream as it counts the GET; what it writes from
    // then on reaches the client, however long the client takes to read it.
    await waitFor(() => server.getCount > 0, 'the standalone GET');
    await serverPeer!.notify('notifications/tools/list_changed');
    expect(await got).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await client.close();
    expect(server.deleteCount).toBe(1);
  });

  it('a server without a standalone stream (405) is fine, and the protocol version header is sent', async () => {
    await using server = await startStreamableHttpServer({
      standaloneGet: false,
      setup: minimalMcpServer(),
    });
    const client = new McpClient();
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(new StreamableHttpTransport({ url: server.url }));
    await client.listTools();
    // The GET has been refused (405), and one round trip later still nothing went wrong.
    await waitFor(() => server.requests.some((r) => r.method === 'GET'), 'the standalone GET');
    await client.listTools();
    expect(errors).toEqual([]);
    const posts = server.requests.filter((r) => r.method === 'POST');
    // The 2026-07-28 probe first, refused by this 2025 server; then the handshake.
    expect(posts[0]!.headers['mcp-method']).toBe('server/discover');
    expect(posts[0]!.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(posts[1]!.headers['mcp-protocol-version']).toBeUndefined();
    expect(client.era).toBe('legacy');
    expect(posts.at(-1)!.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(posts.at(-1)!.headers.accept).toBe('application/json, text/event-stream');
    await client.close();
  });

  it('401: the auth hook is asked, supplies a token, and the request is retried once', async () => {
    await using server = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      authorize: (req) => req.headers.authorization === 'Bearer good',
    });
    let token = 'stale';
    const challenges: unknown[] = [];
    const asked: unknown[] = [];
    const auth = {
      headers: (request?: unknown) => {
        asked.push(request);
        return { Authorization: `Bearer ${token}` };
      },
      onUnauthorized: (c: unknown) => {
        challenges.push(c);
        token = 'good';
        return true;
      },
    };
    const client = new McpClient();
    await client.connect(new StreamableHttpTransport({ url: server.url, auth }));
    expect((await client.listTools()).length).toBe(1);
    expect(challenges).toEqual([
      {
        status: 401,
        url: server.url,
        wwwAuthenticate: expect.stringContaining('resource_metadata='),
        // What the refused request carried, so that a provider can tell stale from bad.
        authorization: 'Bearer stale',
        method: 'POST',
        retries: 0,
      },
    ]);
    // Each request's method and URL, which a DPoP proof signs.
    expect(asked[0]).toEqual({ method: 'POST', url: server.url });
    await client.close();
  });

  it('401 without a way to authorize is a typed error that says what to do; other statuses keep theirs', async () => {
    await using server = await startStreamableHttpServer({
      setup: minimalMcpServer(),
      authorize: () => false,
    });
    const client = new McpClient({ name: 'gh' });
    const error = await client
      .connect(new StreamableHttpTransport({ url: server.url, name: 'gh' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as Error).message).toBe(
      `server "gh": POST ${server.url} → 401 Unauthorized; the server needs authorization`,
    );
    expect((error as UnauthorizedError).wwwAuthenticate).toContain('Bearer');

    const down = new StreamableHttpTransport({ url: 'http://127.0.0.1:9/mcp', name: 'down' });
    await down.start();
    const refused = await down
      .send({ jsonrpc: '2.0', id: 1, method: 'ping' })
      .catch((e: unknown) => e);
    expect(HttpError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toMatch(
      /^server "down": POST http:\/\/127\.0\.0\.1:9\/mcp failed: ECONNREFUSED/,
    );
    await down.close();
  });
});

describe('Streamable HTTP, 2026-07-28 binding (transport level)', () => {
  it('mirrors method, name and parameters into headers; cancelling closes the stream and posts nothing', async () => {
    await using server = await startStreamableHttpServer({
      anyMessageStartsSession: true,
      setup: minimalMcpServer((peer: JsonRpcPeer) => {
        peer.setRequestHandler('hang', () => new Promise(() => {}));
      }),
    });
    const transport = new StreamableHttpTransport({ url: server.url });
    transport.setMessageHeaders((m) =>
      'method' in m && m.method === 'tools/call' ? { 'mcp-param-region': 'us-west1' } : undefined,
    );
    transport.setProtocolVersion('2026-07-28');
    const peer = new JsonRpcPeer(transport);
    await peer.start();
    await peer.request('tools/call', { name: 'wetter-größe', arguments: { region: 'us-west1' } });
    const post = server.requests.filter((r) => r.method === 'POST').at(-1)!;
    expect(post.headers['mcp-method']).toBe('tools/call');
    expect(post.headers['mcp-name']).toBe(
      `=?base64?${Buffer.from('wetter-größe').toString('base64')}?=`,
    );
    expect(post.headers['mcp-param-region']).toBe('us-west1');
    expect(post.headers['mcp-protocol-version']).toBe('2026-07-28');

    const controller = new AbortController();
    const pending = peer.request('hang', {}, { signal: controller.signal });
    await waitFor(() => server.posted.includes('hang'), 'the hanging request to arrive');
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await waitFor(() => server.abandonedStreams > 0, 'the abandoned stream');
    expect(server.abandonedStreams).toBe(1);
    expect(server.posted).not.toContain('notifications/cancelled');
    await peer.close();
  });

  it('2026-07-28: a response stream that breaks is not resumed; the client re-issues the request under a new id', async () => {
    const slowIds: unknown[] = [];
    await using server = await startStreamableHttpServer({
      dropFirstResponseStreamAfter: 1,
      anyMessageStartsSession: true,
      setup: (peer: JsonRpcPeer) => {
        peer.setRequestHandler('server/discover', () => ({
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: {},
        }));
        peer.setRequestHandler('slow', async (_p, ctx) => {
          slowIds.push(ctx.id);
          await ctx.notify('notifications/message', { level: 'info', data: 'working' });
          await new Promise((r) => setTimeout(r, 60));
          return { resultType: 'complete', done: true };
        });
      },
    });
    const client = new McpClient({ name: 'http', eraCache: false });
    await client.connect(new StreamableHttpTransport({ url: server.url, name: 'http' }));
    expect(client.era).toBe('modern');
    const result = await client.call(
      'slow',
      {},
      (await import('@mcpkit/protocol/schemas')).ResultSchema,
    );
    expect(result).toMatchObject({ done: true });
    expect(server.dropped).toBe(true);
    expect(slowIds).toHaveLength(2);
    expect(slowIds[0]).not.toBe(slowIds[1]);
    // No GET with Last-Event-ID: the 2026-07-28 binding has no resumption.
    expect(server.requests.filter((r) => r.method === 'GET')).toEqual([]);
    await client.close();
  });

  it('before 2026-07-28 the legacy way stays: notifications/cancelled is posted, and no Mcp-Method header', async () => {
    await using server = await startStreamableHttpServer({
      setup: minimalMcpServer((peer: JsonRpcPeer) => {
        peer.setRequestHandler('hang', () => new Promise(() => {}));
      }),
    });
    const client = new McpClient();
    await client.connect(new StreamableHttpTransport({ url: server.url }));
    const controller = new AbortController();
    const pending = client.call(
      'hang',
      {},
      (await import('@mcpkit/protocol/schemas')).ResultSchema,
      { signal: controller.signal },
    );
    await waitFor(() => server.posted.includes('hang'), 'the hanging request to arrive');
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await waitFor(
      () => server.posted.includes('notifications/cancelled'),
      'notifications/cancelled to be posted',
    );
    // Only the 2026-07-28 probe carried Mcp-Method; every legacy request is without it.
    const legacy = server.requests.filter((r) => r.headers['mcp-method'] !== 'server/discover');
    expect(legacy.length).toBeGreaterThan(2);
    expect(legacy.every((r) => r.headers['mcp-method'] === undefined)).toBe(true);
    await client.close();
  });
});

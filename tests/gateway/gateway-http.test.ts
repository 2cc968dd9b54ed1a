import { McpClient } from '@mcpkit/client';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_SECRET, backends, resultText } from './gateway-process.js';
import { type InProcessGateway, startInProcessHttpGateway } from './in-process-gateway.js';

/**
 * `@mcpkit/gateway` in-process over HTTP (`listenHttp` on 127.0.0.1, as `mcpkit serve --http`
 * wires it) in front of
 * server-everything, a 2026-07-28 SDK v2 server and a fault fixture, with real clients:
 * SDK v1, SDK v2 (legacy and auto: both eras) and our McpClient.
 */
const TOKEN = 'gateway-test-token-0123456789abcdef';
let gateway: InProcessGateway;
const opened: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  gateway = await startInProcessHttpGateway(backends(), { token: TOKEN });
}, 60_000);
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close().catch(() => {});
  await gateway?.close();
});

const auth = { Authorization: `Bearer ${TOKEN}` };
const text = resultText;

describe('@mcpkit/gateway over HTTP with real clients', () => {
  it('SDK v1 client: lists and calls through the gateway', async () => {
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new HttpV1(gateway.url, { requestInit: { headers: auth } }));
    opened.push(client);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['everything__get-sum', 'modern__add', 'fault__echo']),
    );
    const result = await client.callTool({ name: 'fault__echo', arguments: { text: 'v1' } });
    expect(text(result)).toBe('v1');
  });

  it.each(['legacy', 'auto'] as const)(
    'SDK v2 client (%s negotiation): lists and calls',
    async (mode) => {
      const client = new ClientV2(
        { name: 'sdk-v2', version: '2.0.0' },
        { versionNegotiation: { mode } },
      );
      await client.connect(new HttpV2(gateway.url, { requestInit: { headers: auth } }));
      opened.push(client);
      expect(client.getNegotiatedProtocolVersion()).toBe(
        mode === 'auto' ? '2026-07-28' : '2025-11-25',
      );
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('modern__add');
      const result = await client.callTool({ name: 'modern__add', arguments: { a: 1, b: 2 } });
      expect(text(result as { content: unknown })).toContain('3');
    },
  );

  it.each(['legacy', 'modern'] as const)(
    'our McpClient (%s era): tools, prompts, resources',
    async (era) => {
      const client = new McpClient({ name: 'ours', era, eraCache: false });
      await client.connect(
        new StreamableHttpTransport({ url: gateway.url, name: 'gateway', headers: auth }),
      );
      opened.push(client);
      expect(client.era).toBe(era);
      expect(
        text(await client.callTool({ name: 'everything__get-sum', arguments: { a: 20, b: 22 } })),
      ).toContain('42');
      expect((await client.listPrompts()).map((p) => p.name)).toContain('modern__greet');
      expect((await client.readResource('fixture://config')).contents.length).toBeGreaterThan(0);
    },
  );

  it('a 2026-07-28 client answers a backend elicitation through input_required rounds (the backend call resumes)', async () => {
    const asked: string[] = [];
    const client = new McpClient({
      name: 'ours-modern',
      era: 'modern',
      eraCache: false,
      handlers: {
        elicitation: (params) => {
          asked.push(String((params as { message?: unknown }).message));
          return {
            action: 'accept',
            content: { color: 'green', name: 'Ada', email: 'ada@example.com' },
          };
        },
      },
    });
    await client.connect(
      new StreamableHttpTransport({ url: gateway.url, name: 'gateway', headers: auth }),
    );
    opened.push(client);
    expect(client.era).toBe('modern');
    const result = await client.callTool({
      name: 'everything__trigger-elicitation-request',
      arguments: {},
    });
    expect(asked.length).toBe(1);
    expect(JSON.stringify(result.content)).toContain('accept');
  });

  it('progress from the backend reaches the client; a cancelled call leaves the gateway serving', async () => {
    const client = new McpClient({ name: 'ours-progress', era: 'legacy', eraCache: false });
    await client.connect(
      new StreamableHttpTransport({ url: gateway.url, name: 'gateway', headers: auth }),
    );
    opened.push(client);
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(result.isError).not.toBe(true);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));

    const controller = new AbortController();
    const cancelled = client.callTool(
      {
        name: 'everything__trigger-long-running-operation',
        arguments: { duration: 30, steps: 30 },
      },
      { signal: controller.signal, onprogress: () => controller.abort(new Error('stop')) },
    );
    await expect(cancelled).rejects.toThrow('stop');
    expect(
      text(await client.callTool({ name: 'fault__echo', arguments: { text: 'still here' } })),
    ).toBe('still here');
  });

  it('two HTTP clients are isolated: a backend elicitation goes only to the client whose call caused it', async () => {
    const seen: Record<string, number> = { a: 0, b: 0 };
    const make = async (who: 'a' | 'b') => {
      const client = new ClientV1(
        { name: `sdk-v1-${who}`, version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, async () => {
        seen[who]!++;
        return {
          action: 'accept',
          content: { color: who, name: who, email: `${who}@example.com` },
        };
      });
      await client.connect(new HttpV1(gateway.url, { requestInit: { headers: auth } }));
      opened.push(client);
      return client;
    };
    const a = await make('a');
    await make('b');
    const result = await a.callTool({
      name: 'everything__trigger-elicitation-request',
      arguments: {},
    });
    expect(JSON.stringify(result.content)).toContain('accept');
    expect(seen).toEqual({ a: 1, b: 0 });
  });
});

describe('@mcpkit/gateway over HTTP: the HTTP face', () => {
  const post = (headers: Record<string, string>) =>
    fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });

  it('refuses a request without the bearer token, or with a wrong one (401)', async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: 'Bearer wrong-token-of-some-length' })).status).toBe(401);
    // The same length with one byte changed, a prefix, an extension: each refused.
    const sameLength = `${TOKEN.slice(0, -1)}${TOKEN.endsWith('f') ? 'e' : 'f'}`;
    expect(sameLength.length).toBe(TOKEN.length);
    expect((await post({ Authorization: `Bearer ${sameLength}` })).status).toBe(401);
    expect((await post({ Authorization: `Bearer ${TOKEN.slice(0, -1)}` })).status).toBe(401);
    expect((await post({ Authorization: `Bearer ${TOKEN}0` })).status).toBe(401);
    expect((await post(auth)).status).toBe(200);
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding, 403)', async () => {
    expect((await post({ ...auth, Origin: 'https://evil.example' })).status).toBe(403);
    const res = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: gateway.url.port,
            path: '/mcp',
            method: 'POST',
            headers: { ...auth, Host: 'evil.example', 'content-type': 'application/json' },
          },
          (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{}');
      }, reject);
    });
    expect(res).toBe(403);
  });

  it('refuses a body over the limit (413) before reading it all', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(5 * 1024 * 1024) },
    });
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...auth,
      },
      body: big,
    }).catch((error: Error) => error);
    // The server may answer 413 and close before the upload ends.
    if (res instanceof Error) expect(res.message).toMatch(/fetch failed|socket|reset/i);
    else expect(res.status).toBe(413);
  });

  it('GET /healthz: each backend state, and nothing from the config', async () => {
    const res = await fetch(new URL('/healthz', gateway.url), { headers: auth });
    expect(res.status).toBe(200);
    const body = await res.text();
    const health = JSON.parse(body) as { servers: Array<{ server: string; state: string }> };
    expect(health.servers.map((s) => s.server).sort()).toEqual(['everything', 'fault', 'modern']);
    for (const s of health.servers) expect(s.state).toBe('connected');
    expect(body).not.toContain(process.execPath);
    expect(body).not.toContain(BACKEND_SECRET);
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(401);
  });
});

import {
  AlreadyStartedError,
  ConnectionClosedError,
  ErrorCode,
  JsonRpcPeer,
  NotConnectedError,
  RpcError,
} from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ClientErrorCode,
  capabilitiesFor,
  InvalidResultError,
  InvalidToolError,
  LimitExceededError,
  McpClient,
  MissingHandlerError,
  OutputSchemaError,
  RepeatedCursorError,
  UnsupportedByServerError,
  UnsupportedProtocolVersionError,
  UrlElicitationRequiredError,
} from './index.js';

/** A small real server on the other end of an in-process pair. */
async function serve(
  setup: (server: JsonRpcPeer, seen: string[]) => void,
  options: { version?: string } = {},
) {
  const [clientEnd, serverEnd] = createInProcessPair();
  const server = new JsonRpcPeer(serverEnd);
  const seen: string[] = [];
  server.setRequestHandler('initialize', (p: { protocolVersion: string }) => {
    seen.push(`initialize ${p.protocolVersion}`);
    return {
      protocolVersion: options.version ?? p.protocolVersion,
      capabilities: { tools: {}, resources: {} },
      serverInfo: { name: 'test-server', version: '1.2.3' },
      instructions: 'be nice',
    };
  });
  server.setNotificationHandler('notifications/initialized', () => {
    seen.push('initialized');
  });
  setup(server, seen);
  await server.start();
  return { clientEnd, server, seen };
}

describe('McpClient', () => {
  it('performs the handshake and exposes what the server said', async () => {
    const { clientEnd, seen } = await serve(() => {});
    const client = new McpClient({ name: 'demo' });
    await client.connect(clientEnd);
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'test-server', version: '1.2.3' });
    expect(client.instructions).toBe('be nice');
    expect(client.serverCapabilities).toEqual({ tools: {}, resources: {} });
    await new Promise((r) => setTimeout(r, 5));
    expect(seen).toEqual(['initialize 2025-11-25', 'initialized']);
    await client.close();
  });

  it('accepts an older revision the server picks', async () => {
    const { clientEnd } = await serve(() => {}, { version: '2024-11-05' });
    const client = new McpClient();
    await client.connect(clientEnd);
    expect(client.protocolVersion).toBe('2024-11-05');
    await client.close();
  });

  it('refuses a version it does not speak and closes the connection', async () => {
    const { clientEnd } = await serve(() => {}, { version: '1999-01-01' });
    const client = new McpClient({ name: 'old' });
    const error = await client.connect(clientEnd).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect((error as Error).message).toContain(
      'server "old": server chose protocol version "1999-01-01"',
    );
    await expect(clientEnd.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
  });

  it('aggregates every page of tools/list', async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('tools/list', (p: { cursor?: string }) => {
        const page = Number(p.cursor ?? 0);
        return {
          tools: [{ name: `tool-${page}`, inputSchema: { type: 'object' } }],
          ...(page < 2 ? { nextCursor: String(page + 1) } : {}),
        };
      });
    });
    const client = new McpClient();
    await client.connect(clientEnd);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['tool-0', 'tool-1', 'tool-2']);
    await client.close();
  });

  it('stops on a repeated cursor and on too many pages', async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('tools/list', () => ({ tools: [], nextCursor: 'same' }));
      let n = 0;
      server.setRequestHandler('resources/list', () => ({
        resources: [],
        nextCursor: String(n++),
      }));
    });
    const client = new McpClient({ maxPages: 5 });
    await client.connect(clientEnd);
    await expect(client.listTools()).rejects.toThrow(/returned cursor "same" twice/);
    await expect(client.listResources()).rejects.toThrow(/more than 5 pages; raise maxPages/);
    await client.close();
  });

  it('each situation has a class and code of its own, not the catch-all protocol code', async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('tools/list', () => ({ tools: [], nextCursor: 'same' }));
      let n = 0;
      server.setRequestHandler('resources/list', () => ({
        resources: [],
        nextCursor: String(n++),
      }));
    });
    const client = new McpClient({ maxPages: 5 });
    await client.connect(clientEnd);
    const repeated = await client.listTools().catch((e: unknown) => e);
    expect(RepeatedCursorError.isInstance(repeated)).toBe(true);
    expect(repeated).toMatchObject({ code: ClientErrorCode.RepeatedCursor, cursor: 'same' });
    const pages = await client.listResources().catch((e: unknown) => e);
    expect(LimitExceededError.isInstance(pages)).toBe(true);
    expect(pages).toMatchObject({
      code: ClientErrorCode.LimitExceeded,
      option: 'maxPages',
      limit: 5,
    });
    // This server speaks a handshake-era revision: listen() is not for it.
    const listen = await Promise.resolve()
      .then(() => client.listen({ resources: [] } as never))
      .catch((e: unknown) => e);
    expect(UnsupportedByServerError.isInstance(listen)).toBe(true);
    const again = await client.connect(clientEnd).catch((e: unknown) => e);
    expect(AlreadyStartedError.isInstance(again)).toBe(true);
    expect((again as Error).message).toMatch(
      /connect\(\) was already called; create a new McpClient/,
    );
    await client.close();
  });

  it('reports a malformed result with the path of the problem', async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('tools/list', () => ({ tools: { name: 'not a list' } }));
    });
    const client = new McpClient({ name: 'bad' });
    await client.connect(clientEnd);
    const error = await client.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResultError);
    expect((error as Error).message).toMatch(
      /^server "bad": invalid "tools\/list" result from the server: tools: /,
    );
    await client.close();
  });

  it('one malformed tool is left out or repaired, never the whole list, and each is reported', async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('tools/list', () => ({
        tools: [
          { name: 42, inputSchema: { type: 'object' } },
          { name: 'ok', inputSchema: { type: 'object' } },
          { name: 'bare', inputSchema: {} },
          { name: 'text', inputSchema: { type: 'string' } },
          { name: 'out', inputSchema: { type: 'object' }, outputSchema: { properties: {} } },
        ],
      }));
    });
    const client = new McpClient({ name: 'bad' });
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(clientEnd);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['ok', 'bare', 'out']);
    expect(tools[1]!.inputSchema).toEqual({ type: 'object' });
    expect(tools[2]!.outputSchema).toEqual({ type: 'object', properties: {} });
    expect(errors.map((e) => e.message)).toEqual([
      'server "bad": tool "#0" left out: it has no name',
      'server "bad": tool "bare" repaired: its inputSchema had no "type"; read as "type": "object"',
      expect.stringMatching(/^server "bad": tool "text" left out: inputSchema\.type: /),
      'server "bad": tool "out" repaired: its outputSchema had no "type"; read as "type": "object"',
    ]);
    expect(errors.map((e) => (e as InvalidToolError).action)).toEqual([
      'dropped',
      'repaired',
      'dropped',
      'repaired',
    ]);
    await client.close();
  });

  it('calls a tool, keeps a server error as RpcError, answers ping from the server', async () => {
    let pinged: unknown;
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler(
        'tools/call',
        async (p: { name: string; arguments: { a: number; b: number } }) => {
          if (p.name !== 'add') throw new RpcError(-32602, `Unknown tool: ${p.name}`);
          pinged = await server.request('ping');
          return { content: [{ type: 'text', text: String(p.arguments.a + p.arguments.b) }] };
        },
      );
    });
    const client = new McpClient();
    await client.connect(clientEnd);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(pinged).toEqual({});
    const error = await client.callTool({ name: 'nope' }).catch((e: unknown) => e);
    expect(RpcError.isInstance(error) && error.rpcCode).toBe(-32602);
    await client.close();
  });

  it('list calls for a feature the server lacks return [] without a round trip', async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('prompts/list', () => {
        throw new Error('must not be called');
      });
    });
    const client = new McpClient();
    await client.connect(clientEnd);
    expect(await client.listPrompts()).toEqual([]);
    await client.close();
  });

  it('calls before connect fail with a clear error', async () => {
    const client = new McpClient({ name: 'x' });
    await expect(client.listTools()).rejects.toThrow(
      'server "x": not connected; call connect() first',
    );
    await expect(client.callTool({ name: 'a' })).rejects.toBeInstanceOf(ConnectionClosedError);
    const early = await client.listPrompts().catch((e: unknown) => e);
    expect(NotConnectedError.isInstance(early)).toBe(true);
    expect((early as { code: string }).code).toBe(ErrorCode.NotConnected);
  });

  it('capabilities follow the handlers the host registers', () => {
    expect(capabilitiesFor(undefined)).toEqual({});
    expect(
      capabilitiesFor(
        {
          sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
          samplingTools: true,
          elicitation: () => ({ action: 'cancel' }),
          elicitationModes: ['form', 'url'],
          roots: () => [],
        },
        { experimental: { x: {} } },
      ),
    ).toEqual({
      experimental: { x: {} },
      sampling: { tools: {} },
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    });
  });

  it('sends the derived capabilities, and a burst of list_changed notifications is heard once', async () => {
    let declared: unknown;
    let serverPeer: JsonRpcPeer | undefined;
    const { clientEnd } = await serve((server) => {
      serverPeer = server;
      server.setRequestHandler(
        'initialize',
        (p: { protocolVersion: string; capabilities: unknown }) => {
          declared = p.capabilities;
          return {
            protocolVersion: p.protocolVersion,
            capabilities: {},
            serverInfo: { name: 's', version: '1' },
          };
        },
      );
    });
    const heard: string[] = [];
    const client = new McpClient({
      handlers: { roots: () => [] },
      onlistchanged: (list) => heard.push(list),
    });
    await client.connect(clientEnd);
    expect(declared).toEqual({ roots: { listChanged: true } });
    for (let i = 0; i < 5; i++) await serverPeer!.notify('notifications/tools/list_changed');
    await serverPeer!.notify('notifications/prompts/list_changed');
    await new Promise((r) => setTimeout(r, 120));
    expect(heard.sort()).toEqual(['prompts', 'tools']);
    await client.close();
  });

  it("structuredContent is validated against the tool's outputSchema (JSON Schema 2020-12)", async () => {
    const { clientEnd } = await serve((server) => {
      server.setRequestHandler('tools/list', () => ({
        tools: [
          {
            name: 'weather',
            inputSchema: { type: 'object' },
            outputSchema: {
              type: 'object',
              properties: { temperature: { type: 'number' }, unit: { enum: ['C', 'F'] } },
              required: ['temperature'],
            },
          },
          { name: 'plain', inputSchema: { type: 'object' } },
        ],
      }));
      server.setRequestHandler('tools/call', (p: { name: string; arguments: { mode: string } }) => {
        const structured =
          p.arguments.mode === 'good'
            ? { temperature: 21.5, unit: 'C' }
            : p.arguments.mode === 'bad'
              ? { temperature: 'warm' }
              : undefined;
        return {
          content: [{ type: 'text', text: 'x' }],
          ...(structured ? { structuredContent: structured } : {}),
          ...(p.arguments.mode === 'error' ? { isError: true } : {}),
        };
      });
    });
    const client = new McpClient({ name: 'wx' });
    await client.connect(clientEnd);
    await client.listTools();
    const call = (mode: string, name = 'weather') => client.callTool({ name, arguments: { mode } });
    expect((await call('good')).structuredContent).toEqual({ temperature: 21.5, unit: 'C' });
    const bad = await call('bad').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OutputSchemaError);
    expect((bad as Error).message).toBe(
      'server "wx": tool "weather" returned structuredContent that does not match its outputSchema: /temperature must be number',
    );
    await expect(call('none')).rejects.toThrow(
      'no structuredContent although it declares an outputSchema',
    );
    // An error result is not held to the schema, and tools without one are not checked.
    expect((await call('error')).isError).toBe(true);
    expect((await call('bad', 'plain')).structuredContent).toEqual({ temperature: 'warm' });
    await client.close();
  });

  it('-32042 becomes UrlElicitationRequiredError with the URLs to open; completion is announced', async () => {
    let serverPeer: JsonRpcPeer | undefined;
    const { clientEnd } = await serve((server) => {
      serverPeer = server;
      server.setRequestHandler('tools/call', () => {
        throw new RpcError(-32042, 'This request requires more information.', {
          elicitations: [
            {
              mode: 'url',
              elicitationId: 'e-1',
              url: 'https://auth.example/connect',
              message: 'Connect your account',
            },
          ],
        });
      });
    });
    const completed: string[] = [];
    const client = new McpClient({
      name: 'bank',
      onelicitationcomplete: (id) => completed.push(id),
    });
    await client.connect(clientEnd);
    const error = await client.callTool({ name: 'pay' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    expect((error as UrlElicitationRequiredError).elicitations).toEqual([
      {
        mode: 'url',
        elicitationId: 'e-1',
        url: 'https://auth.example/connect',
        message: 'Connect your account',
      },
    ]);
    expect((error as Error).message).toBe(
      'server "bank": "tools/call" failed: This request requires more information. (-32042)',
    );
    // call() (any method, any schema) maps the same way; it used to pass a bare RpcError.
    const viaCall = await client
      .call('tools/call', { name: 'pay' }, z.object({}))
      .catch((e: unknown) => e);
    expect(UrlElicitationRequiredError.isInstance(viaCall)).toBe(true);
    await serverPeer!.notify('notifications/elicitation/complete', { elicitationId: 'e-1' });
    await new Promise((r) => setTimeout(r, 10));
    expect(completed).toEqual(['e-1']);
    await client.close();
  });
});

/**
 * A scripted 2026-07-28 server on the other end of an in-process pair: a real JSON-RPC
 * peer, for the faults and corner cases no published server produces on demand.
 */
async function serveModern(setup: (server: JsonRpcPeer, seen: any[]) => void) {
  const [clientEnd, serverEnd] = createInProcessPair();
  const server = new JsonRpcPeer(serverEnd);
  const seen: any[] = [];
  server.setRequestHandler('server/discover', () => ({
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: { listChanged: true } },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'scripted', version: '1' } },
  }));
  setup(server, seen);
  await server.start();
  return { clientEnd, server, seen };
}

describe('McpClient, 2026-07-28', () => {
  it('a -32020 header mismatch on tools/call: the tool list is fetched afresh and the call retried once', async () => {
    let calls = 0;
    let lists = 0;
    const { clientEnd } = await serveModern((server) => {
      server.setRequestHandler('tools/list', () => {
        lists++;
        return {
          resultType: 'complete',
          ttlMs: 60_000,
          tools: [{ name: 't', inputSchema: { type: 'object' } }],
        };
      });
      server.setRequestHandler('tools/call', () => {
        calls++;
        if (calls === 1) throw new RpcError(-32020, 'Header mismatch: Mcp-Param-Region missing');
        return { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] };
      });
    });
    const client = new McpClient({ eraCache: false });
    await client.connect(clientEnd);
    await client.listTools();
    const result = await client.callTool({ name: 't', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect([calls, lists]).toEqual([2, 2]);
    await client.close();
  });

  it('a server that keeps asking for input is given up on after maxInputRounds', async () => {
    const { clientEnd } = await serveModern((server) => {
      server.setRequestHandler('tools/call', () => ({
        resultType: 'input_required',
        requestState: 'again',
      }));
    });
    const client = new McpClient({ name: 'greedy', eraCache: false, maxInputRounds: 3 });
    await client.connect(clientEnd);
    await expect(client.callTool({ name: 't' })).rejects.toThrow(
      'server "greedy": "tools/call" still asked for input after 3 rounds',
    );
    await client.close();
  });

  it('an input request the host has no handler for is a clear error naming it', async () => {
    const { clientEnd } = await serveModern((server) => {
      server.setRequestHandler('tools/call', () => ({
        resultType: 'input_required',
        inputRequests: {
          q: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
        },
      }));
    });
    const client = new McpClient({ name: 's', eraCache: false });
    await client.connect(clientEnd);
    const error = await client.callTool({ name: 't' }).catch((e: unknown) => e);
    expect(MissingHandlerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: ClientErrorCode.MissingHandler,
      method: 'sampling/createMessage',
      message:
        'server "s": the server asked for "sampling/createMessage", but this client has no handler for it (pass one in options.handlers)',
    });
    await client.close();
  });

  it('tools with invalid x-mcp-header annotations are left out, and the host is told why', async () => {
    const { clientEnd } = await serveModern((server) => {
      server.setRequestHandler('tools/list', () => ({
        resultType: 'complete',
        tools: [
          {
            name: 'good',
            inputSchema: {
              type: 'object',
              properties: { r: { type: 'string', 'x-mcp-header': 'Region' } },
            },
          },
          {
            name: 'bad',
            inputSchema: {
              type: 'object',
              properties: { n: { type: 'number', 'x-mcp-header': 'N' } },
            },
          },
        ],
      }));
    });
    const client = new McpClient({ eraCache: false });
    const errors: Error[] = [];
    client.onerror = (e) => errors.push(e);
    await client.connect(clientEnd);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['good']);
    expect(errors.map((e) => e.message)).toEqual([
      'server: tool "bad" left out: x-mcp-header "N" is on a parameter of type "number"; only string, integer and boolean are allowed',
    ]);
    expect(InvalidToolError.isInstance(errors[0])).toBe(true);
    expect(errors[0]).toMatchObject({ code: ClientErrorCode.InvalidTool, toolName: 'bad' });
    await client.close();
  });

  it('a list without ttlMs is not cached; one with ttlMs is, until list_changed', async () => {
    let lists = 0;
    let ttl: number | undefined;
    const { clientEnd, server } = await serveModern((s) => {
      s.setRequestHandler('tools/list', () => {
        lists++;
        return { resultType: 'complete', ...(ttl ? { ttlMs: ttl } : {}), tools: [] };
      });
    });
    const client = new McpClient({ eraCache: false });
    await client.connect(clientEnd);
    await client.listTools();
    await client.listTools();
    expect(lists).toBe(2);
    ttl = 60_000;
    await client.listTools();
    await client.listTools();
    expect(lists).toBe(3);
    await server.notify('notifications/tools/list_changed');
    await new Promise((r) => setTimeout(r, 5));
    await client.listTools();
    expect(lists).toBe(4);
    await client.close();
  });

  it('a listen stream that ends before its acknowledgement fails listen()', async () => {
    const { clientEnd } = await serveModern((server) => {
      server.setRequestHandler('subscriptions/listen', () => ({ resultType: 'complete' }));
    });
    const client = new McpClient({ name: 'l', eraCache: false });
    await client.connect(clientEnd);
    await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(
      'server "l": the subscription ended before the server acknowledged it',
    );
    await client.close();
  });

  it('legacy methods map onto the stateless revision: ping is discover, setLevel rides on requests', async () => {
    const { clientEnd, seen } = await serveModern((server, seen) => {
      server.setRequestHandler('tools/call', (p: any) => {
        seen.push(p._meta);
        return { resultType: 'complete', content: [] };
      });
    });
    const client = new McpClient({ eraCache: false, logLevel: 'warning' });
    await client.connect(clientEnd);
    await client.ping();
    await client.callTool({ name: 't' });
    await client.callTool({ name: 't' }, { logLevel: 'debug' });
    expect(seen.map((m) => m['io.modelcontextprotocol/logLevel'])).toEqual(['warning', 'debug']);
    await client.notifyRootsChanged();
    await client.close();
  });
});

describe('McpClient, legacy list caching', () => {
  it('caches a list when the server promises list_changed, and drops it when told', async () => {
    let lists = 0;
    const [clientEnd, serverEnd] = createInProcessPair();
    const server = new JsonRpcPeer(serverEnd);
    server.setRequestHandler('initialize', (p: { protocolVersion: string }) => ({
      protocolVersion: p.protocolVersion,
      capabilities: { prompts: { listChanged: true }, resources: {} },
      serverInfo: { name: 's', version: '1' },
    }));
    server.setRequestHandler('prompts/list', () => {
      lists++;
      return { prompts: [{ name: `p${lists}` }] };
    });
    server.setRequestHandler('resources/list', () => {
      lists++;
      return { resources: [] };
    });
    await server.start();
    const client = new McpClient({ era: 'legacy' });
    await client.connect(clientEnd);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['p1']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['p1']);
    await client.listResources();
    await client.listResources();
    // Prompts were cached (the server promises list_changed); resources were not.
    expect(lists).toBe(3);
    await server.notify('notifications/prompts/list_changed');
    await new Promise((r) => setTimeout(r, 5));
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['p4']);
    await client.close();
  });

  it('a transport that exists only in the handshake era is never probed, and refuses a modern pin', async () => {
    const [clientEnd] = createInProcessPair();
    const legacyOnly = Object.assign(clientEnd, { capabilities: { legacyOnly: true } });
    const client = new McpClient({ era: 'modern' });
    await expect(client.connect(legacyOnly)).rejects.toThrow(
      'carries only handshake-era revisions; 2026-07-28 needs stdio or Streamable HTTP',
    );
  });
});

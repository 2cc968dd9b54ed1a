import { JsonRpcPeer, RpcError } from '@mcpkit/jsonrpc';
import { createInProcessPair } from '@mcpkit/transport-in-process';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from './mcp-server.js';
import { inputRequired } from './run-with-input.js';

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function connect(server: McpServer): Promise<JsonRpcPeer> {
  const [clientEnd, serverEnd] = createInProcessPair();
  await server.connect(serverEnd);
  const client = new JsonRpcPeer(clientEnd);
  await client.start();
  closers.push(() => server.close());
  return client;
}

function greeter(): McpServer {
  const server = new McpServer({ info: { name: 'unit', version: '1.0.0' }, pageSize: 1 });
  server.registerTool('greet', {}, (_args, ctx) => {
    const name = (ctx.inputResponses?.who?.content as { name?: string } | undefined)?.name;
    if (!name) {
      return inputRequired({
        inputRequests: {
          who: {
            method: 'elicitation/create',
            params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
          },
        },
        requestState: { asked: true },
      });
    }
    return {
      content: [{ type: 'text', text: `hi ${name} (${JSON.stringify(ctx.requestState)})` }],
    };
  });
  server.registerTool('second', {}, () => ({ content: [] }));
  return server;
}

describe('McpServer', () => {
  it('refuses a second registration under one name', () => {
    const server = greeter();
    expect(() => server.registerTool('greet', {}, () => ({ content: [] }))).toThrow(
      expect.objectContaining({ code: 'MCPKIT_SERVER_DUPLICATE' }),
    );
  });

  it('pages lists with pageSize', async () => {
    const client = await connect(greeter());
    const first = (await client.request('tools/list', { _meta: meta })) as {
      tools: unknown[];
      nextCursor: string;
    };
    expect(first.tools).toHaveLength(1);
    const second = (await client.request('tools/list', {
      _meta: meta,
      cursor: first.nextCursor,
    })) as {
      tools: Array<{ name: string }>;
      nextCursor?: string;
    };
    expect(second.tools.map((t) => t.name)).toEqual(['second']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('2026-07-28: returns input_required with a sealed state, and finishes on the retry', async () => {
    const client = await connect(greeter());
    const round1 = (await client.request('tools/call', { name: 'greet', _meta: meta })) as {
      resultType: string;
      requestState: string;
    };
    expect(round1.resultType).toBe('input_required');
    expect(round1.requestState).not.toContain('asked');
    const round2 = await client.request('tools/call', {
      name: 'greet',
      _meta: meta,
      requestState: round1.requestState,
      inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(round2).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi Ada ({"asked":true})' }],
    });
  });

  it('2026-07-28: refuses input requests the client has not declared with -32021', async () => {
    const client = await connect(greeter());
    const noElicitation = { ...meta, 'io.modelcontextprotocol/clientCapabilities': {} };
    await expect(
      client.request('tools/call', { name: 'greet', _meta: noElicitation }),
    ).rejects.toMatchObject({
      rpcCode: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });

  it('2025: asks the client itself and runs the handler again with the answer', async () => {
    const client = await connect(greeter());
    client.setRequestHandler('elicitation/create', () => ({
      action: 'accept',
      content: { name: 'Lin' },
    }));
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'unit', version: '1' },
    });
    expect(await client.request('tools/call', { name: 'greet' })).toEqual({
      content: [{ type: 'text', text: 'hi Lin ({"asked":true})' }],
    });
  });

  it('answers a request before initialize, or without _meta, with a clear error', async () => {
    const client = await connect(greeter());
    await expect(client.request('tools/list', {})).rejects.toMatchObject({
      rpcCode: -32602,
      rpcMessage: expect.stringMatching(/needs _meta .* or an initialize handshake first/),
    });
  });
});

describe('ServerSession.client', () => {
  async function open() {
    const server = greeter();
    const [clientEnd, serverEnd] = createInProcessPair();
    const session = await server.connect(serverEnd);
    const met: unknown[] = [];
    session.onclient = (client) => met.push(client);
    const client = new JsonRpcPeer(clientEnd);
    await client.start();
    closers.push(() => server.close());
    return { session, client, met };
  }
  const initialize = {
    protocolVersion: '2025-06-18',
    capabilities: { sampling: {}, roots: { listChanged: true } },
    clientInfo: { name: 'c', version: '2' },
  };
  const legacyClient = {
    era: 'legacy',
    protocolVersion: '2025-06-18',
    capabilities: initialize.capabilities,
    info: initialize.clientInfo,
  };

  it('a 2025 client is known once it says it is initialized, and told once', async () => {
    const { session, client, met } = await open();
    await client.request('initialize', initialize);
    // A ping before notifications/initialized does not count as being initialized.
    await client.request('ping');
    expect(session.client).toBeUndefined();
    await client.notify('notifications/initialized');
    await client.request('ping');
    expect(session.client).toEqual(legacyClient);
    await client.request('tools/list');
    expect(met).toEqual([legacyClient]);
  });

  it('a 2025 client that goes on without notifications/initialized is known at its next request', async () => {
    const { session, client, met } = await open();
    await client.request('initialize', initialize);
    await client.request('tools/list');
    expect(session.client).toEqual(legacyClient);
    expect(met).toHaveLength(1);
  });

  it('a 2026-07-28 client is known at its first request, with what that request declared', async () => {
    const { session, client, met } = await open();
    await client.request('tools/list', { _meta: meta });
    expect(session.client).toEqual({
      era: 'modern',
      protocolVersion: '2026-07-28',
      capabilities: { elicitation: {} },
      info: undefined,
    });
    expect(met).toHaveLength(1);
  });

  it('a request that is refused before the era is read tells nothing', async () => {
    const { session, client } = await open();
    await expect(client.request('ping')).rejects.toThrow();
    expect(session.client).toBeUndefined();
  });
});

describe('McpServer resolveTool', () => {
  it('runs the tool resolveTool gives for an unregistered name, passes its refusal, lists nothing more', async () => {
    const server = new McpServer({
      info: { name: 'unit', version: '1.0.0' },
      resolveTool: (name) => {
        if (name === 'hidden')
          return {
            name,
            definition: {},
            handler: () => ({ content: [{ type: 'text', text: 'ran' }] }),
          };
        if (name === 'twice') throw new RpcError(-32602, 'two tools have that name', { name });
        return undefined;
      },
    });
    server.registerTool('listed', {}, () => ({ content: [] }));
    const client = await connect(server);
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'unit', version: '1' },
    });
    expect(await client.request('tools/call', { name: 'hidden' })).toEqual({
      content: [{ type: 'text', text: 'ran' }],
    });
    await expect(client.request('tools/call', { name: 'twice' })).rejects.toMatchObject({
      rpcCode: -32602,
      rpcMessage: 'two tools have that name',
    });
    await expect(client.request('tools/call', { name: 'nothing' })).rejects.toMatchObject({
      rpcCode: -32602,
      rpcMessage: 'Unknown tool: "nothing"',
    });
    expect(await client.request('tools/list', {})).toEqual({
      tools: [{ name: 'listed', inputSchema: { type: 'object' } }],
    });
  });
});

describe('McpServer.visibilityChanging', () => {
  it('tells each session whose lists changed, for those lists only; not one whose view stayed, nor one that never listed', async () => {
    const server = new McpServer({
      info: { name: 'unit', version: '1.0.0' },
      // Who sees what, by the caller's clientInfo name (a gateway's policy uses ctx.authInfo).
      visible: (kind, name, ctx) =>
        seen[ctx.clientInfo?.name ?? '']?.has(`${kind}:${name}`) ?? false,
    });
    const seen: Record<string, Set<string>> = {
      a: new Set(['tool:t', 'prompt:p', 'resource:r:1']),
      b: new Set(['tool:t', 'prompt:p']),
      c: new Set(['tool:t']),
    };
    server.registerTool('t', {}, () => ({ content: [] }));
    server.registerPrompt('p', {}, () => ({ messages: [] }));
    server.registerResource('r:1', { name: 'r' }, () => ({ contents: [] }));
    const heard: Record<string, string[]> = { a: [], b: [], c: [] };
    const session = async (name: string, lists: boolean) => {
      const client = await connect(server);
      for (const kind of ['tools', 'prompts', 'resources'])
        client.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
          heard[name]!.push(kind);
        });
      await client.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name, version: '0' },
      });
      await client.notify('notifications/initialized');
      if (lists)
        for (const method of ['tools/list', 'prompts/list', 'resources/list'])
          await client.request(method, {});
      return client;
    };
    const a = await session('a', true);
    const b = await session('b', true);
    const c = await session('c', false);
    // Registrations of the setup announce themselves; only what comes after counts.
    await Promise.all([a, b, c].map((p) => p.request('ping', {})));
    for (const k of Object.keys(heard)) heard[k] = [];

    const done = server.visibilityChanging();
    seen.a!.delete('prompt:p');
    seen.a!.delete('resource:r:1');
    seen.c!.delete('tool:t');
    done();
    // In order on each connection: a notification sent by done() arrives before the pong.
    await Promise.all([a, b, c].map((p) => p.request('ping', {})));
    expect(heard).toEqual({ a: ['prompts', 'resources'], b: [], c: [] });

    // The next change is judged against what a now sees.
    const again = server.visibilityChanging();
    seen.a!.add('prompt:p');
    again();
    await a.request('ping', {});
    expect(heard.a).toEqual(['prompts', 'resources', 'prompts']);
  });
});

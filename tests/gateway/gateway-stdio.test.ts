import { McpClient } from '@mcpkit/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  backends,
  conformanceServer,
  faultServer,
  gatewayArgs,
  gatewayStdio,
  resultText,
} from './gateway-process.js';

/**
 * `mcpkit serve` over stdio (the built CLI as a real child process) in front of
 * server-everything, a 2026-07-28 SDK v2 server and a fault fixture that exits mid-call.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const text = resultText;

async function ourClient(extra: string[] = [], servers = backends()) {
  const { args, env, cleanup } = gatewayArgs(servers, extra);
  cleanups.push(cleanup);
  const listChanged: string[] = [];
  const waiters: Array<() => void> = [];
  /** Resolves at the next list_changed notification. */
  const nextListChanged = () => new Promise<void>((resolve) => waiters.push(resolve));
  const client = new McpClient({
    name: 'gateway',
    era: 'legacy',
    eraCache: false,
    onlistchanged: (list) => {
      listChanged.push(list);
      for (const w of waiters.splice(0)) w();
    },
    handlers: {
      elicitation: () => ({ action: 'accept', content: { color: 'blue' } }),
    },
  });
  await client.connect(gatewayStdio(args, env));
  cleanups.push(() => client.close());
  return { client, listChanged, nextListChanged };
}

describe('mcpkit serve over stdio', () => {
  it('serves every backend as <server>__<name>: tools, prompts and resources, calls forwarded', async () => {
    const { client } = await ourClient();
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['everything__get-sum', 'modern__add', 'fault__echo', 'fault__pid']),
    );
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(
      text(await client.callTool({ name: 'everything__get-sum', arguments: { a: 2, b: 3 } })),
    ).toContain('5');
    expect(
      text(await client.callTool({ name: 'modern__add', arguments: { a: 40, b: 2 } })),
    ).toContain('42');

    const prompts = (await client.listPrompts()).map((p) => p.name);
    expect(prompts).toContain('modern__greet');
    const greet = await client.getPrompt('modern__greet', { name: 'Ada' });
    expect(JSON.stringify(greet.messages)).toContain('Ada');

    const resources = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain('fixture://config');
    const read = await client.readResource('fixture://config');
    expect(read.contents.length).toBeGreaterThan(0);
  });

  it('a backend killed mid-call is restarted behind the gateway: the next call succeeds, no list_changed (its list is the same)', async () => {
    const { client, listChanged } = await ourClient();
    const before = (await client.listTools()).map((t) => t.name).sort();
    const firstPid = text(await client.callTool({ name: 'fault__pid' }));
    const crashed = await client.callTool({ name: 'fault__crash' });
    expect(crashed.isError).toBe(true);
    expect(text(crashed)).toContain('fault');
    const secondPid = text(await client.callTool({ name: 'fault__pid' }));
    expect(Number(secondPid)).toBeGreaterThan(0);
    expect(secondPid).not.toBe(firstPid);
    expect((await client.listTools({ fresh: true })).map((t) => t.name).sort()).toEqual(before);
    expect(listChanged).toEqual([]);
  });

  it('list_changed only when a served list changed: once for a real change, not for a backend that only says so', async () => {
    const { client, listChanged, nextListChanged } = await ourClient([], {
      modern: backends().modern,
      conf: { command: process.execPath, args: [conformanceServer, 'stdio'] },
    });
    const before = (await client.listTools()).map((t) => t.name);
    expect(before).not.toContain('conf__test_dynamic_tool');
    // The SDK v2 server announces tools/list_changed with the same list: nothing to forward.
    // (Its stdio `touch` then fails on a resource notification; the announcement went out first.)
    await client.callTool({ name: 'modern__touch', arguments: {} });
    const heard = nextListChanged();
    await client.callTool({ name: 'conf__test_trigger_tool_change', arguments: {} });
    await heard;
    const after = (await client.listTools({ fresh: true })).map((t) => t.name);
    expect(after).toContain('conf__test_dynamic_tool');
    expect(listChanged.filter((l) => l === 'tools')).toEqual(['tools']);
  });

  it('--no-prefix with one server passes names through; --tools filters', async () => {
    const { client } = await ourClient(
      ['--server', 'fault', '--no-prefix', '--tools', '!crash'],
      backends(),
    );
    expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['echo', 'pid']);
    expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('hi');
  });

  it('initialize is not held by a backend that hangs at initialize: the others fill in with list_changed', async () => {
    const servers = {
      fault: backends().fault,
      hung: { command: process.execPath, args: [faultServer, 'hang-init'] },
    };
    // --backend-wait-ms 0: initialize is answered before any backend settles.
    const { client, nextListChanged } = await ourClient(['--backend-wait-ms', '0'], servers);
    expect(client.serverInfo?.name).toBe('mcpkit-serve');
    for (;;) {
      const changed = nextListChanged();
      const names = (await client.listTools({ fresh: true })).map((t) => t.name);
      if (names.includes('fault__echo')) break;
      await changed;
    }
    expect(text(await client.callTool({ name: 'fault__echo', arguments: { text: 'up' } }))).toBe(
      'up',
    );
    // The hung backend never connects, and so offers nothing.
    expect((await client.listTools()).some((t) => t.name.startsWith('hung__'))).toBe(false);
  });

  it('a backend elicitation reaches the calling client (SDK v1 client) and its answer goes back', async () => {
    const { args, env, cleanup } = gatewayArgs({ everything: backends().everything });
    cleanups.push(cleanup);
    const client = new ClientV1(
      { name: 'sdk-v1', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return {
        action: 'accept',
        content: { color: 'blue', name: 'Ada', email: 'ada@example.com' },
      };
    });
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
    cleanups.push(() => client.close());
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('everything__trigger-elicitation-request');
    const result = await client.callTool({
      name: 'everything__trigger-elicitation-request',
      arguments: {},
    });
    expect(asked.length).toBe(1);
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain('accept');
  });

  it('a backend elicitation is refused with a clear error when the client did not declare elicitation', async () => {
    const { args, env, cleanup } = gatewayArgs({ everything: backends().everything });
    cleanups.push(cleanup);
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
    cleanups.push(() => client.close());
    const result = await client.callTool({
      name: 'everything__trigger-elicitation-request',
      arguments: {},
    });
    expect(JSON.stringify(result)).toContain('did not declare the \\"elicitation\\" capability');
  });
});

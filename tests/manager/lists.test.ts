import { createTransport, McpManager } from '@mcpkit/manager';
import { describe, expect, test } from 'vitest';
import { everythingStdio, fault } from './helpers.js';

/**
 * Which lists the manager asks server-everything for (every request the transport sends,
 * recorded by wrapping the real transport): with `lists`, only those at connect and the
 * others on their first read; a read while the connect's fetch is on its way waits for it
 * instead of asking a second time.
 *
 * server-everything registers more tools when it is initialized, and so sends
 * `notifications/tools/list_changed` while the connect's fetch is on its way; the manager
 * answers that with one more `tools/list` after `listChangedDebounceMs`. That refetch is
 * right (the client cannot know the answer it holds already has the change) but it is not
 * what these tests count, and on a loaded machine it came before the reads were done (a
 * second `tools/list` in the record): the debounce is set beyond the test's life here.
 */
function recordingManager(lists?: ('tools' | 'prompts' | 'resources')[]) {
  const sent: string[] = [];
  const manager = new McpManager({
    servers: [everythingStdio('everything')],
    ...(lists ? { lists } : {}),
    limits: { listChangedDebounceMs: 3_600_000, listChangedMaxDelayMs: 3_600_000 },
    transportFactory: async (server, context) => {
      const transport = await createTransport(server, context);
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        if ('method' in message && 'id' in message) sent.push(message.method);
        return send(message, options);
      };
      return transport;
    },
  });
  return { manager, sent: () => sent.filter((m) => m.endsWith('/list')) };
}

describe('the lists a manager fetches', () => {
  test('by default all three at connect, each once: a read during the fetch waits for it', async () => {
    const { manager, sent } = recordingManager();
    await using _ = manager;
    await manager.connectAll();
    // Read at once, while the connect's fetch is still on its way.
    const [tools, commands, resources] = await Promise.all([
      manager.tools(),
      manager.commands(),
      manager.listResources(),
    ]);
    expect(tools.length).toBeGreaterThan(0);
    expect(commands.length).toBeGreaterThan(0);
    expect(resources.length).toBeGreaterThan(0);
    expect(sent().sort()).toEqual([
      'prompts/list',
      'resources/list',
      'resources/templates/list',
      'tools/list',
    ]);
  });

  test('lists: ["tools"] asks for nothing else at connect; prompts are fetched on their first read, once', async () => {
    const { manager, sent } = recordingManager(['tools']);
    await using _ = manager;
    await manager.connectAll();
    expect((await manager.tools()).length).toBeGreaterThan(0);
    expect(sent()).toEqual(['tools/list']);
    const commands = await manager.commands();
    expect(commands.length).toBeGreaterThan(0);
    await manager.commands();
    expect(sent()).toEqual(['tools/list', 'prompts/list']);
  });

  test('serverTools: the tools as the server listed them, in its order, from the same fetch', async () => {
    const { manager, sent } = recordingManager(['tools']);
    await using _ = manager;
    await manager.connectAll();
    const listed = await manager.serverTools('everything');
    expect(sent()).toEqual(['tools/list']);
    const state = manager.state('everything');
    if (state?.state !== 'connected') throw new Error('not connected');
    const direct = await state.client.listTools({ fresh: true });
    expect(listed).toEqual(direct);
    // tools() names the same tools for a host, sorted by host name.
    const hosted = (await manager.tools()).map((t) => t.tool);
    expect([...hosted].sort()).toEqual(direct.map((t) => t.name).sort());
  });

  test('serverTools rejects with the server error when its tools/list failed; tools() has none of it', async () => {
    await using manager = new McpManager({ servers: [fault('broken', 'list-error')] });
    await manager.connectAll();
    await expect(manager.serverTools('broken')).rejects.toThrow('the tool registry is unavailable');
    expect(await manager.tools()).toEqual([]);
  });

  test('a kind that is not a list is refused when the manager is made', () => {
    expect(() => new McpManager({ lists: ['tool' as 'tools'] })).toThrow(
      /"lists" has "tool"; the kinds are "tools", "prompts", "resources"/,
    );
  });
});

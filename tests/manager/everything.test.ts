import { statSync } from 'node:fs';
import type { ResolvedServer } from '@mcpkit/config';
import { type ManagerEvents, McpManager } from '@mcpkit/manager';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEverythingHttp } from '../support/everything-http.js';
import { everythingStdio, nextEvent, resolved } from './helpers.js';

type Peer = { server: ResolvedServer; close(): Promise<void> };

const peers: Record<string, () => Promise<Peer>> = {
  stdio: async () => ({ server: everythingStdio('everything'), close: async () => {} }),
  'streamable HTTP': async () => {
    const http = await startEverythingHttp('streamableHttp');
    return {
      server: resolved('everything', { type: 'http', url: `${http.base}/mcp` }),
      close: () => http.close(),
    };
  },
  SSE: async () => {
    const http = await startEverythingHttp('sse');
    return {
      server: resolved('everything', { type: 'sse', url: `${http.base}/sse` }),
      close: () => http.close(),
    };
  },
};

describe.each(Object.keys(peers))('server-everything over %s through the manager', (kind) => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await peers[kind]!();
  });
  afterAll(() => peer?.close());

  test('connects, publishes events in order, lists tools, calls one, persists binary, runs a prompt, reads resources', async () => {
    const events: string[] = [];
    const manager = new McpManager({ servers: [peer.server], limits: { outputBudgetChars: 40 } });
    const record =
      <K extends keyof ManagerEvents>(type: K, describe: (e: ManagerEvents[K]) => string) =>
      (e: ManagerEvents[K]) =>
        events.push(`${type}:${describe(e)}`);
    manager.on(
      'statechange',
      record('statechange', (e) => e.state.state),
    );
    manager.on(
      'toolschange',
      record('toolschange', (e) => `+${e.added.length}`),
    );
    const toolsArrived = nextEvent<ManagerEvents['toolschange']>(
      (l) => manager.on('toolschange', l),
      (e) => e.added.length > 0,
    );
    let files: string[] = [];
    try {
      const snapshot = await manager.connectAll();
      const state = snapshot.servers[0]!;
      expect(state.state).toBe('connected');
      if (state.state !== 'connected') return;
      expect(state.serverInfo?.name).toMatch(/everything/i);
      expect(state.era).toBe('legacy');
      expect(state.protocolVersion).toMatch(/^20\d\d-\d\d-\d\d$/);
      expect(state.connectMs).toBeGreaterThanOrEqual(0);
      // Events in order: added (pending) → pending (connecting) → connected → tools added.
      expect(events.slice(0, 3)).toEqual([
        'statechange:pending',
        'statechange:pending',
        'statechange:connected',
      ]);
      // The tools follow the connected state (a server may announce them a moment later
      // with list_changed; the manager then publishes them after its debounce).
      await toolsArrived;
      const firstTools = events.findIndex((e) => /^toolschange:\+[1-9]/.test(e));
      expect(firstTools).toBeGreaterThan(events.indexOf('statechange:connected'));

      const tools = await manager.tools();
      const sum = tools.find((t) => t.name === 'mcp__everything__get-sum')!;
      expect(sum.server).toBe('everything');
      expect(sum.tool).toBe('get-sum');
      expect(sum.inputSchema).toMatchObject({ type: 'object' });
      expect(manager.resolveToolName(sum.name)).toEqual({ server: 'everything', tool: 'get-sum' });
      expect((await sum.call({ a: 2, b: 3 })).text).toMatch(/\b5\b/);

      // Binary content becomes a 0600 file in the manager's own directory.
      const image = await tools.find((t) => t.tool === 'get-tiny-image')!.call({});
      expect(image.files.length).toBeGreaterThanOrEqual(1);
      files = image.files.map((f) => f.path);
      for (const f of image.files) {
        expect(f.path).toMatch(/\.png$/);
        expect(statSync(f.path).mode & 0o777).toBe(0o600);
        expect(statSync(f.path).size).toBe(f.bytes);
      }
      expect(image.text).toContain('[image saved to ');

      // The output budget: cut with an explicit marker, never silently.
      const long = await tools.find((t) => t.tool === 'echo')!.call({ message: 'x'.repeat(500) });
      expect(long.truncated).toBe(true);
      expect(long.text).toContain('[output truncated: showing 40 of');

      const commands = await manager.commands();
      const args = commands.find((c) => c.prompt === 'args-prompt')!;
      expect(args.name).toBe('mcp__everything__args-prompt');
      const messages = await args.run('Lisbon Lisboa');
      expect(messages[0]!.content).toEqual({
        type: 'text',
        text: "What's weather in Lisbon, Lisboa?",
      });

      const resources = await manager.listResources();
      expect(resources.length).toBeGreaterThan(0);
      expect(resources.every((r) => r.server === 'everything')).toBe(true);
      const doc = resources.find((r) => r.uri.startsWith('demo://resource/static/document/'))!;
      const read = await manager.readResource('everything', doc.uri);
      expect(read.contents[0]!.uri).toBe(doc.uri);
      expect(
        (await manager.listResourceTemplates('everything')).every((t) => t.server === 'everything'),
      ).toBe(true);
    } finally {
      await manager.close();
    }
    // Files written for binary results are removed on close.
    for (const f of files) expect(() => statSync(f)).toThrow(/ENOENT/);
  });
});

test('a long tool that reports progress outlives its timeout (progress token sent, timeout reset)', async () => {
  await using manager = new McpManager({ servers: [everythingStdio('everything')] });
  await manager.connectAll();
  const progress: number[] = [];
  const result = await manager.callTool(
    'everything',
    'trigger-long-running-operation',
    { duration: 3, steps: 6 },
    { timeoutMs: 1_500, onprogress: (p) => progress.push(p.progress) },
  );
  expect(result.isError).toBe(false);
  expect(progress.length).toBeGreaterThanOrEqual(5);
});

test('a caller without onprogress still sends the progress token (the shared call options keep the timeout reset)', async () => {
  await using manager = new McpManager({ servers: [everythingStdio('everything')] });
  await manager.connectAll();
  // Twice with the same timeout: the second call reuses the first one's call options.
  for (let i = 0; i < 2; i++) {
    const result = await manager.callTool(
      'everything',
      'trigger-long-running-operation',
      { duration: 3, steps: 6 },
      { timeoutMs: 1_500 },
    );
    expect(result.isError).toBe(false);
  }
});

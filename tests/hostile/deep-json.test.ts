import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { McpClient } from '@mcpkit/client';
import { ErrorCode, JsonRpcPeer, JsonTooDeepError } from '@mcpkit/jsonrpc';
import { type ManagerEvents, McpManager } from '@mcpkit/manager';
import { StdioServerTransport } from '@mcpkit/server';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { describe, expect, test } from 'vitest';
import { faultServer, gatewayArgs } from '../gateway/gateway-process.js';
import { fault, nextEvent, resolved } from '../manager/helpers.js';
import { runCli, sandbox, serversDir, waitFor } from './cli-harness.js';

// A server whose JSON nests too deep for any recursive walk (the RangeError of the finding)
// fails its own list, call or notification with a typed error naming it and the limit; the
// server beside it keeps working, over stdio and over Streamable HTTP.

const deepServer = `${serversDir}deep-json-server.mjs`;
const DEPTHS = [1_000, 10_000, 100_000];
type Mode = 'schema' | 'calls';

/** The first line the child writes on stdout. */
function firstLine(child: ReturnType<typeof spawn>): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`deep-json-server exited (${code})`)));
  });
}

async function deepEntry(transport: 'stdio' | 'http', mode: Mode, depth: number) {
  if (transport === 'stdio')
    return {
      server: resolved('deep', {
        type: 'stdio',
        command: process.execPath,
        args: [deepServer, mode, String(depth)],
      }),
      async [Symbol.asyncDispose]() {},
    };
  const child = spawn(process.execPath, [deepServer, mode, String(depth), '--http'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = await firstLine(child);
  return {
    server: resolved('deep', { type: 'http', url }),
    async [Symbol.asyncDispose]() {
      child.stdin!.end();
      await exited;
    },
  };
}

function expectTooDeep(error: unknown, depth: number): void {
  expect(JsonTooDeepError.isInstance(error)).toBe(true);
  const e = error as JsonTooDeepError;
  expect(e.code).toBe(ErrorCode.JsonTooDeep);
  expect(e.maxDepth).toBe(256);
  expect(e.depth).toBeGreaterThan(depth);
  expect(e.message).toContain('server "deep"');
  expect(e.message).toContain('256-level limit');
}

describe.each(['stdio', 'http'] as const)('JSON nested too deep, over %s', (transport) => {
  test.each(DEPTHS)(
    "a tool schema nested %i deep fails that server's list with a typed error; the other server's tools stay",
    async (depth) => {
      await using deep = await deepEntry(transport, 'schema', depth);
      await using manager = new McpManager({ servers: [deep.server, fault('fine', 'ok')] });
      await manager.connectAll();
      const failure = await manager.serverTools('deep').then(
        () => undefined,
        (error: unknown) => error,
      );
      expectTooDeep(failure, depth);
      const names = (await manager.tools()).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['mcp__fine__echo', 'mcp__fine__pid']));
      expect(names.some((n) => n.startsWith('mcp__deep__'))).toBe(false);
      expect((await manager.callTool('fine', 'echo', { text: 'still here' })).text).toBe(
        'still here',
      );
    },
  );

  test.each(DEPTHS)(
    'a call result, resource contents and notification params nested %i deep fail alone; the server keeps working',
    async (depth) => {
      await using deep = await deepEntry(transport, 'calls', depth);
      await using manager = new McpManager({ servers: [deep.server, fault('fine', 'ok')] });
      await manager.connectAll();
      expect(manager.state('deep')?.state).toBe('connected');

      expectTooDeep(
        await manager.callTool('deep', 'deep-result', {}).catch((e: unknown) => e),
        depth,
      );
      expectTooDeep(
        await manager.readResource('deep', 'deep://resource').catch((e: unknown) => e),
        depth,
      );

      const warned = nextEvent<ManagerEvents['warning']>(
        (listener) => manager.on('warning', listener),
        (w) => w.server === 'deep' && JsonTooDeepError.isInstance(w.error),
      );
      expect((await manager.callTool('deep', 'deep-notify', {})).text).toBe('notified');
      const warning = await warned;
      expect((warning.error as JsonTooDeepError).depth).toBeGreaterThan(depth);
      expect(warning.error.message).toContain('256-level limit');

      expect((await manager.callTool('deep', 'echo', { text: 'after' })).text).toBe('after');
      expect(manager.state('deep')?.state).toBe('connected');
      expect((await manager.callTool('fine', 'echo', { text: 'fine' })).text).toBe('fine');
    },
  );
});

const stdioEntry = (mode: string, depth: number) => ({
  command: process.execPath,
  args: [deepServer, mode, String(depth)],
});
const fineEntry = { command: process.execPath, args: [faultServer, 'ok'] };

describe('through the built CLI', () => {
  test.each(DEPTHS)(
    'mcpkit --json tools: a schema nested %i deep is reported by server name; the healthy server is listed',
    async (depth) => {
      using box = sandbox('mcpkit-deep-json-');
      const config = JSON.stringify({
        mcpServers: { deep: stdioEntry('schema', depth), fine: fineEntry },
      });
      const run = await runCli(['--json', '-c', config, 'tools'], box);
      expect(run.signal).toBeNull();
      // A partial failure: what was listed is printed, the failure named, the status 1.
      expect(run.code).toBe(1);
      const out = JSON.parse(run.stdout) as {
        servers: Array<{ name: string; tools: Array<{ name: string }> }>;
        errors: Array<{ server: string; error: string }>;
      };
      expect(out.servers.map((s) => s.name)).toEqual(['fine']);
      expect(out.servers[0]!.tools.map((t) => t.name)).toContain('echo');
      expect(out.errors).toHaveLength(1);
      expect(out.errors[0]!.server).toBe('deep');
      expect(out.errors[0]!.error).toContain('server "deep"');
      expect(out.errors[0]!.error).toContain('256-level limit');
      expect(run.stderr).not.toContain('Maximum call stack');
    },
  );
});

describe('through mcpkit serve (stdio)', () => {
  test.each(DEPTHS)(
    'a backend whose list turns %i deep at list_changed: the gateway lives on and serves the healthy backend',
    async (depth) => {
      const { args, env, cleanup } = gatewayArgs({
        deep: stdioEntry('schema-later', depth),
        fine: fineEntry,
      });
      let stderr = '';
      const client = new McpClient({ name: 'gateway', era: 'legacy', eraCache: false });
      try {
        await client.connect(
          new StdioTransport({
            command: process.execPath,
            args,
            env: env as Record<string, string>,
            name: 'gateway',
            onstderr: (text) => {
              stderr += text;
            },
          }),
        );
        const before = (await client.listTools()).map((t) => t.name);
        expect(before).toEqual(expect.arrayContaining(['deep__deepen', 'fine__echo']));
        // The backend turns its list deep and says so: the gateway's refresh must fail
        // for that backend alone.
        await client.callTool({ name: 'deep__deepen', arguments: {} });
        await waitFor(
          () => stderr.includes('256-level limit'),
          "the gateway's warning about the deep list",
        );
        expect(stderr).toContain('server "deep"');
        expect(stderr).not.toContain('Maximum call stack');
        const after = (await client.listTools({ fresh: true })).map((t) => t.name);
        expect(after).toEqual(expect.arrayContaining(['fine__echo', 'fine__pid']));
        const echoed = await client.callTool({ name: 'fine__echo', arguments: { text: 'alive' } });
        expect(JSON.stringify(echoed.content)).toContain('alive');
        await client.ping();
      } finally {
        await client.close();
        cleanup();
      }
    },
  );

  test("a backend deep from the start (and its list_changed): tools/list has the healthy backend's tools", async () => {
    const { args, env, cleanup } = gatewayArgs({
      deep: stdioEntry('schema', 100_000),
      fine: fineEntry,
    });
    let stderr = '';
    const client = new McpClient({ name: 'gateway', era: 'legacy', eraCache: false });
    try {
      await client.connect(
        new StdioTransport({
          command: process.execPath,
          args,
          env: env as Record<string, string>,
          name: 'gateway',
          onstderr: (text) => {
            stderr += text;
          },
        }),
      );
      await waitFor(() => stderr.includes('256-level limit'), 'the warning about the deep list');
      const names = (await client.listTools({ fresh: true })).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['fine__echo', 'fine__pid']));
      expect(names.some((n) => n.startsWith('deep__'))).toBe(false);
      await client.ping();
    } finally {
      await client.close();
      cleanup();
    }
  });
});

describe('a request nested too deep from the other side', () => {
  test.each(DEPTHS)(
    'nested %i deep: answered -32600 with its own id, and the next request still served',
    async (depth) => {
      const stdin = new PassThrough();
      const stdout = new PassThrough();
      const peer = new JsonRpcPeer(new StdioServerTransport({ stdin, stdout }), {
        label: 'client "x"',
      });
      peer.setRequestHandler('echo', (params) => params);
      const errors: Error[] = [];
      peer.onerror = (error) => errors.push(error);
      const lines = createInterface({ input: stdout });
      const answers: unknown[] = [];
      lines.on('line', (line) => answers.push(JSON.parse(line)));
      await peer.start();
      const deep = '['.repeat(depth) + ']'.repeat(depth);
      stdin.write(`{"jsonrpc":"2.0","id":"d1","method":"echo","params":{"x":${deep}}}\n`);
      stdin.write('{"jsonrpc":"2.0","id":2,"method":"echo","params":{"y":1}}\n');
      await waitFor(() => answers.length === 2, 'two answers');
      expect(answers[0]).toMatchObject({
        id: 'd1',
        error: { code: -32600, message: expect.stringContaining('256-level limit') },
      });
      expect(answers[1]).toEqual({ jsonrpc: '2.0', id: 2, result: { y: 1 } });
      expect(JsonTooDeepError.isInstance(errors[0])).toBe(true);
      lines.close();
      await peer.close();
    },
  );
});

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ErrorCode, JsonTooDeepError } from '@mcpkit/jsonrpc';
import { type ManagerEvents, McpManager } from '@mcpkit/manager';
import { describe, expect, test } from 'vitest';
import { fault, nextEvent, resolved } from '../manager/helpers.js';
import { serversDir } from './cli-harness.js';

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

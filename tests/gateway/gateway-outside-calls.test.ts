import { fileURLToPath } from 'node:url';
import { McpClient } from '@mcpkit/client';
import { StdioServerTransport as NdjsonPipe } from '@mcpkit/server';
import { StreamableHttpTransport } from '@mcpkit/transport-streamable-http';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport as NdjsonPipeV1 } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { backends, gatewayArgs, resultText } from './gateway-process.js';
import {
  type InProcessStdioGateway,
  startInProcessHttpGateway,
  startInProcessStdioGateway,
} from './in-process-gateway.js';

/**
 * A backend's `roots/list` that belongs to no call (server-everything asks right after it
 * is initialized, and again on `notifications/roots/list_changed`). Over stdio the gateway
 * has one client and asks it; over HTTP, or a client that cannot be asked, it is refused
 * and the backend sees why. `@mcpkit/gateway` in-process (over stdio its listener on a pipe
 * pair, each client speaking newline-delimited JSON through a stdio transport's framing;
 * over HTTP its listener on 127.0.0.1), real backends.
 */
const rootsProbe = {
  command: process.execPath,
  args: [fileURLToPath(new URL('./roots-probe-server.mjs', import.meta.url))],
};

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const text = resultText;

async function stdioGateway(servers: Record<string, unknown>): Promise<InProcessStdioGateway> {
  const started = await startInProcessStdioGateway(servers);
  cleanups.push(() => started.close());
  return started;
}

/** The probe's outcomes (once it has `count`): what each of its roots/list requests got. */
async function probeOutcomes(
  call: (name: string, args: Record<string, unknown>) => Promise<unknown>,
  count = 1,
) {
  return JSON.parse(text(await call('probe__roots', { count }))) as Array<{
    roots?: Array<{ uri: string }>;
    error?: { code: number; message: string };
  }>;
}

describe('@mcpkit/gateway: a backend request outside any call', () => {
  it('stdio: roots/list asked at a backend start reaches the SDK v1 client that declared roots with no call running, and its roots/list_changed reaches every backend', async () => {
    const pipes = await stdioGateway({ everything: backends().everything, probe: rootsProbe });
    let roots = [{ uri: 'file:///work/gateway-root-a', name: 'a' }];
    let running = 0;
    /** Whether a call was running at each roots/list the client was asked. */
    const asks: boolean[] = [];
    const outside = () => asks.filter((during) => !during).length;
    const waiters: Array<{ count: number; wake: () => void }> = [];
    /** Resolves once the client was asked `count` times with no call running. */
    const askedOutside = (count: number) =>
      new Promise<void>((wake) => {
        if (outside() >= count) wake();
        else waiters.push({ count, wake });
      });
    const client = new ClientV1(
      { name: 'sdk-v1', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      asks.push(running > 0);
      for (const w of waiters.filter((w) => outside() >= w.count)) w.wake();
      return { roots };
    });
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      running++;
      try {
        return await client.callTool({ name, arguments: args });
      } finally {
        running--;
      }
    };
    await client.connect(new NdjsonPipeV1(pipes.fromGateway, pipes.toGateway));
    cleanups.push(() => client.close());

    // Both backends ask once at their start: the client answers before any call is made.
    await askedOutside(2);
    expect(asks).toEqual([false, false]);
    expect((await probeOutcomes(call))[0]).toEqual({ roots });
    // server-everything keeps what it got (a call that comes before it stored the answer
    // sees the previous list, or asks again): read until the answer is in.
    let listed = text(await call('everything__get-roots-list'));
    while (!listed.includes('gateway-root-a'))
      listed = text(await call('everything__get-roots-list'));

    roots = [{ uri: 'file:///work/gateway-root-b', name: 'b' }];
    await client.sendRootsListChanged();
    // Both are told, and ask again, with no call running.
    await askedOutside(4);
    expect((await probeOutcomes(call, 2)).at(-1)).toEqual({ roots });
    listed = text(await call('everything__get-roots-list'));
    while (!listed.includes('gateway-root-b'))
      listed = text(await call('everything__get-roots-list'));
  });

  // The built CLI (a real child process): `mcpkit serve` over stdio makes its listener the
  // gateway's sole client, which is what refuses here, naming the capability.
  it('stdio: a client without the roots capability: the backend is refused, told that the client did not declare it', async () => {
    const { args, env, cleanup } = gatewayArgs({ probe: rootsProbe });
    cleanups.push(cleanup);
    const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: {} });
    await client.connect(
      new StdioV1({ command: process.execPath, args, env: env as Record<string, string> }),
    );
    cleanups.push(() => client.close());
    const [first] = await probeOutcomes((name, args) => client.callTool({ name, arguments: args }));
    expect(first?.roots).toBeUndefined();
    expect(first?.error?.message).toContain('arrived outside any call');
    expect(first?.error?.message).toContain('did not declare the "roots" capability');
  });

  it('stdio: a 2026-07-28 client cannot be asked outside a call: the backend is refused, told so', async () => {
    const pipes = await stdioGateway({ probe: rootsProbe });
    const asked: string[] = [];
    const client = new McpClient({
      name: 'modern-client',
      era: 'modern',
      eraCache: false,
      handlers: {
        roots: () => {
          asked.push('roots');
          return [{ uri: 'file:///work/never', name: 'never' }];
        },
      },
    });
    await client.connect(new NdjsonPipe({ stdin: pipes.fromGateway, stdout: pipes.toGateway }));
    cleanups.push(() => client.close());
    expect(client.era).toBe('modern');
    const [first] = await probeOutcomes((name, args) => client.callTool({ name, arguments: args }));
    expect(first?.error?.message).toContain('2026-07-28');
    expect(first?.error?.message).toContain('only within a call');
    expect(asked).toEqual([]);
  });

  it('http: roots/list outside any call is refused (many sessions, none to choose): the backend sees the error, the client is not asked', async () => {
    const gateway = await startInProcessHttpGateway({ probe: rootsProbe });
    cleanups.push(() => gateway.close());
    const asked: string[] = [];
    const client = new McpClient({
      name: 'http-client',
      era: 'legacy',
      eraCache: false,
      handlers: {
        roots: () => {
          asked.push('roots');
          return [{ uri: 'file:///work/never', name: 'never' }];
        },
      },
    });
    await client.connect(new StreamableHttpTransport({ url: gateway.url }));
    cleanups.push(() => client.close());
    const [first] = await probeOutcomes((name, args) => client.callTool({ name, arguments: args }));
    expect(first?.error?.message).toContain('arrived outside any call');
    expect(asked).toEqual([]);
  });
});

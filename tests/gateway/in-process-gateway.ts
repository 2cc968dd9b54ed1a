import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { AuthorizationHandler } from '@mcpkit/auth';
import type { ResolvedServer, ServerConfig } from '@mcpkit/config';
import { createGateway, type Gateway, gatewayHandlers, type SoleClient } from '@mcpkit/gateway';
import { type HttpListenerOptions, listenHttp, StdioListener } from '@mcpkit/gateway/node';
import { createTransport, McpManager } from '@mcpkit/manager';
import type { StreamableHttpStats } from '@mcpkit/server';

export interface InProcessGateway {
  readonly url: URL;
  readonly gateway: Gateway;
  readonly manager: McpManager;
  /** The listener's accounting (sessions, streams, buffered bytes). */
  stats(): StreamableHttpStats;
  /** What the gateway and the manager warned about. */
  stderr(): string;
  close(): Promise<void>;
}

/** What both listeners' tests set: the backends' bounds, the gateway's filter, … */
export interface InProcessOptions {
  /** Every backend transport's `maxMessageBytes` (what `--max-message-bytes` sets). */
  maxMessageBytes?: number;
  describeError?: (error: unknown, server: string) => string | undefined;
  /** The gateway's tool filter (what `--tools` makes with `toolFilter`). */
  filter?: (server: string, tool: string) => boolean;
  /** The manager's interactive sign-in (what a backend's `authenticate` tool runs). */
  interactive?: AuthorizationHandler;
  /** Bounds a call (`--timeout`); 30 s by default. */
  callTimeoutMs?: number;
}

/**
 * The manager of these backends and `createGateway` over it, connected and started, the way
 * `mcpkit serve` wires them. A private HOME keeps the machine's token store out of it.
 */
async function wire(
  servers: Record<string, unknown>,
  options: InProcessOptions,
  soleClient?: SoleClient,
): Promise<{ home: string; manager: McpManager; gateway: Gateway; stderr: () => string }> {
  const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-gateway-home-'));
  let stderr = '';
  const entries = Object.entries(servers).map(
    ([name, config]): ResolvedServer =>
      ({
        name,
        scope: 'user',
        source: 'test',
        config: config as ServerConfig,
        status: 'enabled',
        reason: 'test entry',
        policy: { allowed: true },
      }) as ResolvedServer,
  );
  let gateway: Gateway | undefined;
  const manager = new McpManager({
    servers: entries,
    clientInfo: { name: 'mcpkit-serve', version: '0.0.0' },
    handlers: gatewayHandlers(() => gateway),
    env: { PATH: process.env.PATH ?? '', HOME: home },
    home,
    ...(options.interactive ? { auth: { interactive: options.interactive } } : {}),
    ...(options.maxMessageBytes !== undefined
      ? {
          transportFactory: (server: ResolvedServer, context) =>
            createTransport(server, { ...context, maxMessageBytes: options.maxMessageBytes }),
        }
      : {}),
  });
  manager.on('warning', ({ server, error }) => {
    stderr += `${server}: ${error.message}\n`;
  });
  gateway = createGateway({
    manager,
    servers: entries.map((s) => s.name),
    info: { name: 'mcpkit-serve', version: '0.0.0' },
    callTimeoutMs: options.callTimeoutMs ?? 30_000,
    ...(options.filter ? { filter: options.filter } : {}),
    ...(options.describeError ? { describeError: options.describeError } : {}),
    warn: (text) => {
      stderr += `${text}\n`;
    },
    ...(soleClient ? { soleClient } : {}),
  });
  const started = gateway;
  try {
    await manager.connectAll();
    await started.start();
  } catch (error) {
    await unwire(started, manager, home);
    throw error;
  }
  return { home, manager, gateway: started, stderr: () => stderr };
}

/** Closes what `wire` started and removes its HOME, whatever fails on the way. */
async function unwire(gateway: Gateway, manager: McpManager, home: string): Promise<void> {
  try {
    await gateway.close().catch(() => {});
    await manager.close();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * `@mcpkit/gateway` in this process, the way `mcpkit serve --http 127.0.0.1:0` wires it: a
 * manager of these backends (real child processes, real HTTP servers), `createGateway`,
 * `listenHttp`. A private HOME keeps the machine's token store out of it.
 */
export async function startInProcessHttpGateway(
  servers: Record<string, unknown>,
  options: InProcessOptions & {
    token?: string;
    /** The listener's bounds (sessions, streams, event buffers). */
    limits?: HttpListenerOptions['limits'];
  } = {},
): Promise<InProcessGateway> {
  const { home, manager, gateway: started, stderr } = await wire(servers, options);
  const listener = await listenHttp(started, {
    host: '127.0.0.1',
    port: 0,
    // Without a token, the explicit loopback-only `auth: 'none'`: these tests are not about
    // authentication (gateway-http-face.test.ts is).
    ...(options.token !== undefined ? { token: options.token } : { auth: 'none' as const }),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
  }).catch(async (error: unknown) => {
    await unwire(started, manager, home);
    throw error;
  });
  return {
    url: listener.url,
    gateway: started,
    manager,
    stats: () => listener.stats(),
    stderr,
    close: async () => {
      await listener.close().catch(() => {});
      await unwire(started, manager, home);
    },
  };
}

export interface InProcessStdioGateway {
  readonly gateway: Gateway;
  readonly manager: McpManager;
  /** The client's end of the pipe pair: what the gateway writes, and where the client writes. */
  readonly fromGateway: PassThrough;
  readonly toGateway: PassThrough;
  /** What the gateway and the manager warned about. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * `@mcpkit/gateway` in this process over stdio, the way `mcpkit serve` (no `--http`) wires
 * it: a `StdioListener` on a pipe pair, and that listener the gateway's sole client (a
 * backend's request outside any call is asked of it; its roots/list_changed goes to every
 * connected backend). A client speaks newline-delimited JSON on `toGateway`/`fromGateway`.
 */
export async function startInProcessStdioGateway(
  servers: Record<string, unknown>,
  options: InProcessOptions = {},
): Promise<InProcessStdioGateway> {
  const toGateway = new PassThrough();
  const fromGateway = new PassThrough();
  let manager: McpManager | undefined;
  const listener = new StdioListener({
    stdin: toGateway,
    stdout: fromGateway,
    ...(options.maxMessageBytes !== undefined ? { maxMessageBytes: options.maxMessageBytes } : {}),
    waitMs: options.callTimeoutMs ?? 30_000,
    onrootschanged: () => {
      for (const { name } of manager?.snapshot().servers ?? []) {
        const state = manager?.state(name);
        if (state?.state === 'connected') void state.client.notifyRootsChanged().catch(() => {});
      }
    },
  });
  const wired = await wire(servers, options, listener);
  manager = wired.manager;
  await listener.listen(wired.gateway.server).catch(async (error: unknown) => {
    await unwire(wired.gateway, wired.manager, wired.home);
    throw error;
  });
  return {
    gateway: wired.gateway,
    manager: wired.manager,
    fromGateway,
    toGateway,
    stderr: wired.stderr,
    close: async () => {
      toGateway.end();
      await unwire(wired.gateway, wired.manager, wired.home);
    },
  };
}

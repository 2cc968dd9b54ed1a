import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenStreamableHttp, McpServer, type SessionStore } from '@mcpkit/server';
import { Redis } from 'ioredis';
// The project's own installers: Debian's redis-server and haproxy, installed when missing.
import { ensureHaproxy } from '../../scripts/ensure-haproxy.mjs';
import { ensureRedis } from '../../scripts/ensure-redis.mjs';

/** A child process that must print `ready` on stdout or stderr before it is used. */
async function startUntil(
  command: string,
  args: string[],
  ready: RegExp,
  what: string,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${output}`)),
    );
  });
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export interface RedisServer {
  /** The unix socket it listens on (no TCP port to race for). */
  readonly socket: string;
  close(): Promise<void>;
}

/**
 * A real redis-server in a temp dir, on a unix socket, saving nothing to disk. `cluster`:
 * in Redis Cluster mode, one node holding all 16384 slots, so that it refuses what a
 * cluster refuses (a script or command whose keys span slots: CROSSSLOT) while a plain
 * client still reaches every key.
 */
export async function startRedis(options: { cluster?: boolean } = {}): Promise<RedisServer> {
  const binary = ensureRedis();
  if (!binary) throw new Error('redis-server is missing (see the message of ensure-redis above)');
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-redis-'));
  const socket = path.join(dir, 'redis.sock');
  const cluster = options.cluster
    ? ['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf')]
    : [];
  const { child } = await startUntil(
    binary,
    [
      '--port',
      '0',
      '--unixsocket',
      socket,
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      ...cluster,
    ],
    /ready to accept connections/i,
    'redis-server',
  );
  const close = async () => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
  if (options.cluster) {
    const admin = new Redis({ path: socket });
    try {
      await admin.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      // The node says its cluster is up once it has looked at its slots (about 2 s here).
      while (!/cluster_state:ok/.test(String(await admin.call('CLUSTER', 'INFO'))))
        await new Promise((r) => setTimeout(r, 100));
    } catch (error) {
      await close();
      throw error;
    } finally {
      admin.disconnect();
    }
  }
  return { socket, close };
}

export interface RedisCluster {
  /** Each node's port on 127.0.0.1 (Cluster clients follow the nodes' own addresses). */
  readonly ports: readonly number[];
  close(): Promise<void>;
}

/**
 * A real three-node Redis Cluster on 127.0.0.1 (TCP: a cluster's nodes tell clients where
 * the others are), the 16384 slots split in three, saving nothing to disk.
 */
export async function startRedisCluster(): Promise<RedisCluster> {
  const binary = ensureRedis();
  if (!binary) throw new Error('redis-server is missing (see the message of ensure-redis above)');
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-redis-cluster-'));
  const nodes: Array<{ child: ChildProcess; port: number; bus: number }> = [];
  const close = async () => {
    for (const n of nodes) await stop(n.child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const bus = await freePort();
      const { child } = await startUntil(
        binary,
        [
          '--bind',
          '127.0.0.1',
          '--port',
          String(port),
          '--cluster-enabled',
          'yes',
          '--cluster-port',
          String(bus),
          '--cluster-config-file',
          path.join(dir, `nodes-${i}.conf`),
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        /ready to accept connections/i,
        'redis-server (cluster node)',
      );
      nodes.push({ child, port, bus });
      const admin = new Redis({ port, host: '127.0.0.1' });
      try {
        const first = Math.floor((16384 * i) / 3);
        const last = Math.floor((16384 * (i + 1)) / 3) - 1;
        await admin.call('CLUSTER', 'ADDSLOTSRANGE', String(first), String(last));
        const [seed] = nodes;
        if (i > 0 && seed)
          await admin.call('CLUSTER', 'MEET', '127.0.0.1', String(seed.port), String(seed.bus));
      } finally {
        admin.disconnect();
      }
    }
    // Up once every node knows the three and says so.
    for (const n of nodes) {
      const admin = new Redis({ port: n.port, host: '127.0.0.1' });
      try {
        for (;;) {
          const info = String(await admin.call('CLUSTER', 'INFO'));
          if (/cluster_state:ok/.test(info) && /cluster_known_nodes:3/.test(info)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        admin.disconnect();
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { ports: nodes.map((n) => n.port), close };
}

/** A free TCP port on 127.0.0.1 (for HAProxy, which cannot report a port it picked). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

export interface Haproxy {
  readonly url: URL;
  close(): Promise<void>;
}

/**
 * A real HAProxy in front of `backends`: HTTP mode, round-robin per request, no stickiness
 * (no cookies, no hashing of `Mcp-Session-Id`); a connection refused by a dead replica is
 * retried on another (`option redispatch`).
 */
export async function startHaproxy(backends: readonly URL[], urlPath = '/mcp'): Promise<Haproxy> {
  const binary = ensureHaproxy();
  if (!binary) throw new Error('haproxy is missing (see the message of ensure-haproxy above)');
  const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-haproxy-'));
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const config = [
      'global',
      '  maxconn 1024',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 120s',
      '  timeout server 120s',
      '  retries 3',
      '  option redispatch 1',
      'frontend front',
      `  bind 127.0.0.1:${port}`,
      '  default_backend replicas',
      'backend replicas',
      '  balance roundrobin',
      ...backends.map((u, i) => `  server r${i} ${u.hostname}:${u.port}`),
      '',
    ].join('\n');
    const file = path.join(dir, 'haproxy.cfg');
    writeFileSync(file, config);
    const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
    // Ready once the port answers (HAProxy says nothing when it starts well).
    const ok = await new Promise<boolean>((resolve) => {
      child.once('exit', () => resolve(false));
      const probe = async () => {
        while (child.exitCode === null) {
          const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
            () => true,
            () => false,
          );
          if (up) return resolve(true);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      void probe();
    });
    if (ok)
      return {
        url: new URL(`http://127.0.0.1:${port}${urlPath}`),
        close: async () => {
          await stop(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    if (attempt >= 3) throw new Error(`haproxy did not start:\n${output}`);
  }
}

/** The built CLI (`pnpm turbo run build` first). */
const cliBin = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));

export interface CliReplica {
  readonly id: string;
  readonly url: URL;
  readonly child: ChildProcess;
  stderr(): string;
  /** SIGKILL to this replica's process (not its backends: a crash leaves them to end). */
  kill(): Promise<void>;
  /** SIGKILL to its whole process group (afterAll: nothing of it is left behind). */
  killGroup(): Promise<void>;
}

export interface CliReplicaOptions {
  id: string;
  /** `mcpServers` of the CLI's config. */
  servers: Record<string, unknown>;
  redisUrl: string;
  tokenFile: string;
  /** A gateway config (`store.heartbeatMs`, …), when given. */
  gatewayConfig?: string;
  home: string;
}

/**
 * `mcpkit serve --http 127.0.0.1:0 --redis <url> --replica-id <id>` as a child process in
 * a process group of its own; resolves once it says where it listens.
 */
export async function startCliReplica(options: CliReplicaOptions): Promise<CliReplica> {
  const args = [
    cliBin,
    'serve',
    '-c',
    JSON.stringify({ mcpServers: options.servers }),
    '--strict-config',
    '--http',
    '127.0.0.1:0',
    '--token-file',
    options.tokenFile,
    '--redis',
    options.redisUrl,
    '--replica-id',
    options.id,
    ...(options.gatewayConfig ? ['--gateway-config', options.gatewayConfig] : []),
  ];
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: options.home,
      XDG_DATA_HOME: path.join(options.home, 'data'),
      XDG_STATE_HOME: path.join(options.home, 'state'),
    },
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve(new URL(match[1]!));
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`mcpkit serve exited (${code ?? signal}) before listening:\n${stderr}`)),
    );
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    id: options.id,
    url,
    child,
    stderr: () => stderr,
    kill: async () => {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    killGroup: async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
      await exited;
    },
  };
}

/** Whether a process is still there (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a response's body in the background (a GET stream that stays open): `text()` is
 * what has arrived so far, `cancel()` stops reading (and drops the stream).
 */
export function collectText(res: Response): { text(): string; cancel(): Promise<void> } {
  const reader = res.body!.getReader();
  let text = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += Buffer.from(value).toString();
    }
  })().catch(() => {});
  return { text: () => text, cancel: () => reader.cancel().catch(() => {}) };
}

/**
 * Reads an SSE answer up to its first event id (the priming event), then drops the
 * connection with `abort`: a stream broken as a network would break it.
 */
export async function dropAfterFirstEventId(
  res: Response,
  abort: AbortController,
): Promise<string> {
  const reader = res.body!.getReader();
  let seen = '';
  let eventId: string | undefined;
  while (eventId === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before its priming event: ${seen}`);
    seen += Buffer.from(value).toString();
    eventId = /^id: (\S+)$/m.exec(seen)?.[1];
  }
  abort.abort();
  await reader.cancel().catch(() => {});
  return eventId;
}

/** A POST stream's owner, as its event ids carry it. */
export interface EventIdOwner {
  stream: number;
  seq: number;
  replica: string;
  requestId: string | number;
}

/**
 * The owner a shared POST stream's event id carries, decoded here on its own from the
 * format SERVE.md documents (`<stream>_<seq>.<replica, base64url>.<request id: an integer,
 * or s + base64url>`), not with the server's code; undefined for an id without one.
 */
export function ownerInEventId(eventId: string): EventIdOwner | undefined {
  const m = /^(\d+)_(\d+)\.([\w-]+)\.(-?\d+|s[\w-]*)$/.exec(eventId);
  if (!m) return undefined;
  const request = m[4]!;
  return {
    stream: Number(m[1]),
    seq: Number(m[2]),
    replica: Buffer.from(m[3]!, 'base64url').toString('utf8'),
    requestId: request.startsWith('s')
      ? Buffer.from(request.slice(1), 'base64url').toString('utf8')
      : Number(request),
  };
}

/** The id of another event of the same stream: `seq` in place of the id's, the rest kept. */
export function eventIdAt(eventId: string, seq: number): string {
  return eventId.replace(/^(\d+)_\d+/, `$1_${seq}`);
}

/** The headers of a raw 2025-11-25 Streamable HTTP request, before a session. */
export const rawHeaders: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

/** A raw 2025-11-25 `initialize` POST (with `extra` headers, a bearer token say): its response. */
export function rawInitialize(url: URL, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...extra, ...rawHeaders },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    }),
  });
}

/** A 2025-11-25 session opened with raw requests (initialize, then initialized): its request headers. */
export async function rawSession(
  url: URL,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const init = await rawInitialize(url, extra);
  await init.text();
  const headers = {
    ...extra,
    ...rawHeaders,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
  };
  await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return headers;
}

/**
 * `server` behind Streamable HTTP as replica `id` over `store` (SSE answers; more listener
 * `options`). Closing it closes the listener, the server and the store.
 */
export async function serveReplica(
  server: McpServer,
  id: string,
  store: SessionStore,
  options: Parameters<typeof listenStreamableHttp>[1] = {},
): Promise<{ url: URL; close(): Promise<void> }> {
  const listener = await listenStreamableHttp(server, {
    ...options,
    sessionStore: store,
    replicaId: id,
    responseMode: 'sse',
  });
  return {
    url: listener.url,
    close: async () => {
      await listener.close();
      await server.close();
      await store.close();
    },
  };
}

/**
 * A replica (an `McpServer` behind Streamable HTTP, SSE answers) over `store`, whose `step`
 * tool sends one log message on the call's stream and a list change for the GET stream, then
 * answers `step on <id>`. Closing it closes the store too.
 */
export async function stepReplica(
  id: string,
  store: SessionStore,
  onerror: (error: Error) => void,
): Promise<{ url: URL; close(): Promise<void> }> {
  const server = new McpServer({ info: { name: `probe-${id}`, version: '1.0.0' }, onerror });
  server.registerTool('step', { inputSchema: { type: 'object' } }, async (_args, ctx) => {
    await ctx.log('info', { step: id });
    server.listChanged('tools');
    return { content: [{ type: 'text', text: `step on ${id}` }] };
  });
  return serveReplica(server, id, store);
}

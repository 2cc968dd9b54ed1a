import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConnectionClosedError, JsonRpcPeer, MessageTooLargeError } from '@mcpkit/jsonrpc';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ProcessExitedError,
  ProcessSpawnError,
  StdioTransport,
  type StdioTransportOptions,
} from './index.js';
import { isAlive } from './process-tree.js';

const fixtures = fileURLToPath(new URL('../test/fixtures/', import.meta.url));
const server = path.join(fixtures, 'fixture-server.mjs');
const node = process.execPath;

const opened: StdioTransport[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});

async function connect(options: Partial<StdioTransportOptions> & { args?: string[] } = {}) {
  const warnings: Error[] = [];
  const transport = new StdioTransport({
    command: node,
    args: [server],
    name: 'fixture',
    onwarning: (w) => warnings.push(w),
    ...options,
  });
  opened.push(transport);
  const peer = new JsonRpcPeer(transport);
  await peer.start();
  return { transport, peer, warnings };
}

/** Running means present in the process table and not a zombie. */
function running(pid: number): boolean {
  return isAlive({ pid, startTime: undefined });
}

describe('StdioTransport', () => {
  it('round-trips requests with a real child process', async () => {
    const { peer } = await connect();
    expect(await peer.request('echo', { hello: 'world' })).toEqual({ hello: 'world' });
    const many = await Promise.all(
      Array.from({ length: 100 }, (_, i) => peer.request('echo', { i })),
    );
    expect(many.map((r) => (r as { i: number }).i)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it("joinWrites 'turn': requests sent from separate events of one loop turn round-trip, in order; another value is refused", async () => {
    const { peer } = await connect({ joinWrites: 'turn' });
    expect(await peer.request('echo', { hello: 'world' })).toEqual({ hello: 'world' });
    // One request per event, as a gateway forwards its HTTP callers' requests.
    const many = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          new Promise((resolve, reject) =>
            setImmediate(() => peer.request('echo', { i }).then(resolve, reject)),
          ),
      ),
    );
    expect(many.map((r) => (r as { i: number }).i)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    expect(
      () => new StdioTransport({ command: node, joinWrites: 'soon' as unknown as 'turn' }),
    ).toThrow(/"joinWrites" must be 'tick' or 'turn'/);
  });

  it('answers a server-to-client request on the same pipe', async () => {
    const { peer } = await connect();
    peer.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///tmp' }] }));
    expect(await peer.request('ping-back')).toEqual({
      clientSaid: { roots: [{ uri: 'file:///tmp' }] },
    });
  });

  it('a server that prints garbage: lines skipped as warnings, messages around them kept', async () => {
    const { peer, warnings } = await connect({ args: [server, '--garbage'] });
    expect(await peer.request('echo', { a: 1 })).toEqual({ a: 1 });
    expect(await peer.request('echo', { b: 2 })).toEqual({ b: 2 });
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    expect(warnings[0]!.message).toContain('line is not JSON');
  });

  it('a server that crashes mid-call: the call rejects naming the exit code and stderr tail', async () => {
    const { peer, transport } = await connect();
    const pid = transport.pid!;
    const error: any = await peer.request('crash').catch((e: unknown) => e);
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expect(error.cause).toBeInstanceOf(ProcessExitedError);
    expect(error.cause.exitCode).toBe(7);
    expect(error.message).toContain('server "fixture"');
    expect(error.message).toContain('exited with code 7');
    expect(error.message).toContain('fatal: disk on fire');
    expect(running(pid)).toBe(false);
    // The server read the request (and died running it): not known to be unsent.
    expect(error.unsent).toBe(false);
    await expect(peer.request('echo')).rejects.toThrow(/closed/);
  });

  it('a request written after the server was killed, before the exit is seen, is unsent: its write failed, the process never read it', async () => {
    const { peer, transport } = await connect();
    const pid = transport.pid!;
    process.kill(pid, 'SIGKILL');
    // Without yielding, so the transport has not seen the exit: the request goes to stdin.
    while (running(pid));
    const error: any = await peer.request('echo', { a: 1 }).catch((e: unknown) => e);
    expect(ConnectionClosedError.isInstance(error)).toBe(true);
    expect(error.unsent).toBe(true);
    expect(error.message).toContain('connection closed before "echo" was sent');
    expect(error.cause).toBeInstanceOf(ProcessExitedError);
    // Once the transport knows, a request is refused before it is written: unsent too.
    const refused: any = await peer.request('echo').catch((e: unknown) => e);
    expect(refused.unsent).toBe(true);
  });

  it('a server that ignores SIGINT and SIGTERM is escalated to SIGKILL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcpkit-stdio-'));
    const log = path.join(dir, 'signals.log');
    try {
      const { peer, transport } = await connect({
        args: [server, '--ignore-signals', '--signal-log', log],
      });
      await peer.request('echo');
      const pid = transport.pid!;
      await transport.close();
      expect(running(pid)).toBe(false);
      expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['SIGINT', 'SIGTERM']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a server started through sh -c that spawns grandchildren leaves nothing running after close', async () => {
    const { peer, transport } = await connect({
      command: 'sh',
      args: ['-c', `"${node}" "${server}" --grandchildren --ignore-signals; echo unreachable`],
    });
    const { pid, grandchildren } = (await peer.request('pids')) as {
      pid: number;
      grandchildren: number[];
    };
    const shell = transport.pid!;
    const all = [shell, pid, ...grandchildren];
    expect(all.every(running)).toBe(true);
    await transport.close();
    expect(all.filter(running)).toEqual([]);
  });

  it('a server that exits on its own takes its grandchildren with it', async () => {
    const { peer } = await connect({
      command: 'sh',
      args: ['-c', `"${node}" "${server}" --grandchildren; exit 3`],
    });
    const { grandchildren } = (await peer.request('pids')) as { grandchildren: number[] };
    const closed = new Promise<Error | undefined>((resolve) => {
      peer.onclose = resolve;
    });
    await peer.request('quit'); // the server exits 0, then sh exits 3
    try {
      const cause = await closed;
      expect((cause as ProcessExitedError).exitCode).toBe(3);
      // The grandchild in the same process group is swept; the one that left the group
      // with setsid cannot be found once its parent is gone (documented limitation).
      expect(running(grandchildren[0]!)).toBe(false);
    } finally {
      for (const pid of grandchildren) if (running(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('a command that does not exist fails start() with a spawn error that says what to do', async () => {
    const transport = new StdioTransport({
      command: 'definitely-not-a-command-xyz',
      name: 'ghost',
    });
    const error: any = await transport.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProcessSpawnError);
    expect(error.message).toBe(
      'server "ghost": cannot start "definitely-not-a-command-xyz": command not found; check that "definitely-not-a-command-xyz" is installed and on PATH (or give an absolute path)',
    );
  });

  it("passes a safe environment plus configured variables, not the host's secrets", async () => {
    const { peer } = await connect({
      env: { CONFIGURED: 'yes' },
      sourceEnv: {
        PATH: process.env.PATH,
        HOME: '/home/x',
        AWS_SECRET_ACCESS_KEY: 'leak',
        EVIL: '() { :; }',
      },
    });
    const { env } = (await peer.request('env')) as { env: Record<string, string> };
    expect(env.CONFIGURED).toBe('yes');
    expect(env.HOME).toBe('/home/x');
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
  });

  it('a server behind a TLS-intercepting proxy inherits the CA, proxy and npm registry variables', async () => {
    const network = {
      NODE_EXTRA_CA_CERTS: '/etc/ssl/proxy-ca.pem',
      SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt',
      SSL_CERT_DIR: '/etc/ssl/certs',
      REQUESTS_CA_BUNDLE: '/etc/ssl/certs/ca-certificates.crt',
      HTTPS_PROXY: 'http://proxy.example:3128',
      https_proxy: 'http://proxy.example:3128',
      HTTP_PROXY: 'http://proxy.example:3128',
      no_proxy: 'localhost,127.0.0.1',
      NPM_CONFIG_REGISTRY: 'https://npm.example/',
      npm_config_cafile: '/etc/ssl/proxy-ca.pem',
    };
    const { peer } = await connect({
      sourceEnv: { PATH: process.env.PATH, ...network, NPM_TOKEN: 'secret' },
    });
    const { env } = (await peer.request('env')) as { env: Record<string, string> };
    for (const [name, value] of Object.entries(network)) expect(env[name], name).toBe(value);
    expect(env.NPM_TOKEN).toBeUndefined();
  });

  it("an entry's env overrides an inherited CA variable", async () => {
    const { peer } = await connect({
      env: { NODE_EXTRA_CA_CERTS: '/entry/ca.pem' },
      sourceEnv: { PATH: process.env.PATH, NODE_EXTRA_CA_CERTS: '/host/ca.pem' },
    });
    const { env } = (await peer.request('env')) as { env: Record<string, string> };
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/entry/ca.pem');
  });

  it('a shell prefix receives the whole command line as one argument', async () => {
    const { peer } = await connect({
      shellPrefix: path.join(fixtures, 'wrap.sh'),
      command: node,
      args: [server, '--garbage'],
    });
    const { env } = (await peer.request('env')) as { env: Record<string, string> };
    expect(env.WRAPPED_BY_PREFIX).toBe('yes');
  });

  it('carries a 10 MB message each way', async () => {
    const { peer } = await connect();
    const text = 'z'.repeat(10 * 1024 * 1024);
    const echoed = (await peer.request('echo', { text })) as { text: string };
    expect(echoed.text.length).toBe(text.length);
    const big = (await peer.request('big', { bytes: 10 * 1024 * 1024 })) as { text: string };
    expect(big.text.length).toBe(10 * 1024 * 1024);
    // 20 MB through two pipes and JSON on a busy 2-core machine: more than vitest's 5 s.
  }, 60_000);

  it('a response over maxMessageBytes fails that request at once and the connection lives on', async () => {
    const { peer } = await connect({ maxMessageBytes: 1024 * 1024 });
    const error: any = await peer
      .request('big', { bytes: 2 * 1024 * 1024 })
      .catch((e: unknown) => e);
    expect(MessageTooLargeError.isInstance(error)).toBe(true);
    expect(error.message).toContain('"big"');
    expect(await peer.request('echo', { still: 'alive' })).toEqual({ still: 'alive' });
  });

  it('stderr is captured in a bounded buffer and emitted as events', async () => {
    const chunks: string[] = [];
    const { peer, transport } = await connect({
      onstderr: (t) => chunks.push(t),
      stderrBufferChars: 16,
    });
    const controller = new AbortController();
    const pending = peer.request('hang', {}, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    // The server writes the line when the cancellation reaches it: wait for that event.
    await vi.waitFor(() => expect(chunks.join('')).toContain('cancelled 1'), {
      timeout: 20_000,
      interval: 20,
    });
    expect(transport.stderrTail().length).toBeLessThanOrEqual(16);
  });

  it('close is idempotent and send after close rejects', async () => {
    const { transport } = await connect();
    await Promise.all([transport.close(), transport.close()]);
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(
  new URL('../fixtures/faults/sdk-v1-http-server.mjs', import.meta.url),
);

/** A port nothing listens on right now, for a server that must come back on the same one. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Starts the SDK v1 stateful Streamable HTTP server (tools `whoami` and `gen_<generation>`);
 * resolves once it printed "listening".
 */
export async function startSdkServer(port: number, generation: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture, String(port), String(generation)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`SDK v1 server exited with ${code} before listening`)),
    );
  });
  return child;
}

export async function stopServer(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/**
 * A TCP relay on 127.0.0.1 in front of a server, like a socket-activated service or a load
 * balancer: while it holds (`target(undefined)`), new connections wait rather than being
 * refused, and flow to the next server once it is given. A server restarted behind it is
 * back "at once" for the client, however long the new process takes to start.
 */
export class TcpRelay {
  port = 0;
  private upstream: number | undefined;
  private readonly waiting: Socket[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((client) => {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => {});
    client.pause();
    if (this.upstream === undefined) this.waiting.push(client);
    else this.pipe(client, this.upstream);
  });

  static async start(upstream: number): Promise<TcpRelay> {
    const relay = new TcpRelay();
    relay.upstream = upstream;
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    relay.port = (relay.server.address() as { port: number }).port;
    return relay;
  }

  /** Where new connections go; `undefined` holds them until the next call. */
  target(upstream: number | undefined): void {
    this.upstream = upstream;
    if (upstream === undefined) return;
    for (const client of this.waiting.splice(0)) this.pipe(client, upstream);
  }

  private pipe(client: Socket, upstream: number): void {
    const server = connect(upstream, '127.0.0.1');
    this.sockets.add(server);
    server.on('close', () => {
      this.sockets.delete(server);
      client.destroy();
    });
    server.on('error', () => {});
    client.on('close', () => server.destroy());
    client.pipe(server);
    server.pipe(client);
    client.resume();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

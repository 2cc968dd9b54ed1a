import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
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

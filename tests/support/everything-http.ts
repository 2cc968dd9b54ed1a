import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { everythingEntry } from './everything.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server-everything did not listen on port ${port} within ${timeoutMs} ms`);
}

/** server-everything in `streamableHttp` or `sse` mode on a free port; `close()` stops its whole process group. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse') {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingEntry, mode], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitForPort(port, 20_000);
  } catch (error) {
    process.kill(-child.pid!, 'SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    base: `http://127.0.0.1:${port}`,
    async close() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {}
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {}
      }, 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

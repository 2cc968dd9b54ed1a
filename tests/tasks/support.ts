import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

/** The tasks fixture (tests/fixtures/tasks-server.mjs): a 2026-07-28 server on @mcpkit/server. */
export const tasksFixture = fileURLToPath(new URL('../fixtures/tasks-server.mjs', import.meta.url));

/** The fixture as a child process over HTTP on a free port; `stop()` ends it. */
export async function startTasksServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [tasksFixture, 'http'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fixture did not start: ${stderr}`)), 30_000);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`fixture exited (${code}): ${stderr}`)));
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resolves when `check` holds, looking again after each macrotask (no clock in the verdict). */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The fixture over HTTP for one test file: started before its tests, stopped after them. */
export function useTasksServer(): { readonly url: string } {
  let server: { url: string; stop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    server = await startTasksServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get url() {
      if (!server) throw new Error('the tasks fixture is not running');
      return server.url;
    },
  };
}

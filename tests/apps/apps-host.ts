import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';

/**
 * `mcpkit apps` as a person starts it: the built CLI, a real child process with a fresh
 * HOME, the servers given as an inline config. Resolves with its one-time link.
 */
const bin = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));

export interface AppsHost {
  link: string;
  /** What it wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export async function startAppsHost(mcpServers: Record<string, unknown>): Promise<AppsHost> {
  const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-apps-home-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, '--strict-config', '--config', JSON.stringify({ mcpServers }), 'apps'],
    {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const link = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /open (http:\/\/127\.0\.0\.1:\d+\/open\?t=[A-Za-z0-9_-]+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`mcpkit apps exited ${code}: ${err}`)));
    });
    return { link, stderr: () => err, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs `tool` from the page and returns the frame of its view once the page shows it. */
export async function openView(
  page: Page,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<Frame> {
  await page.selectOption('#tool', tool);
  await page.fill('#args', JSON.stringify(args));
  await page.click('#run');
  await page.waitForSelector(`#status:has-text("shown: ${tool}")`);
  const frame = page.frames().find((f) => f !== page.mainFrame() && f.url().includes('/view/'));
  if (!frame) throw new Error('no view frame');
  return frame;
}

export type RpcAnswer = { result?: unknown; error?: { code: number; message: string } };

/** Speaks as a hand-written view (its `window.rpc`). */
export const viewRpc = (frame: Frame, method: string, params: unknown) =>
  frame.evaluate(
    ([m, p]) =>
      (globalThis as unknown as { rpc(m: unknown, p: unknown): Promise<unknown> }).rpc(m, p),
    [method, params] as const,
  ) as Promise<RpcAnswer>;

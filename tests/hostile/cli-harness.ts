import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTable } from '../support/process-table.js';

/**
 * The built CLI (`pnpm turbo run build --filter mcpkit...` first). MCPKIT_TEST_CLI_BIN
 * points the suite at another build, e.g. an older one, to see these tests fail there.
 */
export const bin =
  process.env.MCPKIT_TEST_CLI_BIN ??
  fileURLToPath(new URL('../../apps/cli/dist/bin.cjs', import.meta.url));
export const serversDir = fileURLToPath(new URL('./servers/', import.meta.url));

/** A fresh home and project folder: the machine's own config is never read. */
export interface Sandbox {
  dir: string;
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  file(name: string, content: unknown): string;
  [Symbol.dispose](): void;
}

export function sandbox(prefix = 'mcpkit-cli-hostile-'): Sandbox {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  return {
    dir,
    home,
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local/share'),
      XDG_STATE_HOME: path.join(home, '.local/state'),
      SHELL: '/bin/sh',
      LANG: 'C.UTF-8',
    },
    file(name, content) {
      const file = path.join(dir, name);
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      return file;
    },
    [Symbol.dispose]() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The built CLI as a child with pipes; `done` settles when it has exited. */
export function startCli(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string },
): {
  child: ChildProcess;
  done: Promise<CliRun>;
  output: () => { stdout: string; stderr: string };
} {
  const child = spawn(process.execPath, [bin, ...args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => {
    stdout += t;
  });
  child.stderr!.setEncoding('utf8').on('data', (t: string) => {
    stderr += t;
  });
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, output: () => ({ stdout, stderr }) };
}

export function runCli(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<CliRun> {
  return startCli(args, options).done;
}

export { waitFor } from '../support/wait-for.js';

/** Live processes whose command line contains `marker`. */
export function processesWith(marker: string) {
  return processTable().filter((p) => p.cmdline.includes(marker) && p.pid !== process.pid);
}

/** Kills what a failed test left behind, so that one failure does not leak into others. */
export function killLeftovers(marker: string): void {
  // An empty marker would match every process on the machine.
  if (marker.length < 8) throw new Error(`killLeftovers: marker "${marker}" is too short`);
  for (const p of processesWith(marker)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {}
  }
}

/**
 * A real pseudo-terminal: a private tmux server (Debian's /usr/bin/tmux) running one
 * command in a pane. tmux's own `pane_dead_status` is sometimes never filled in when the
 * pane's terminal closes before the child is reaped, so bash (which carries on after a
 * child that handled SIGINT itself) writes the exit status to a file.
 */
export class Tmux {
  private readonly socket: string;
  private readonly conf: string;
  private readonly statusFile: string;

  constructor(
    private readonly box: Sandbox,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.socket = path.join(box.dir, 'tmux.sock');
    this.conf = box.file('tmux.conf', 'set -g remain-on-exit on\nset -g history-limit 5000\n');
    this.statusFile = path.join(box.dir, 'tmux-exit-status');
  }

  private tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.socket, '-f', this.conf, ...args], {
      env: this.env,
      cwd: this.box.cwd,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /**
   * Runs `argv` (no shell quoting needed) in a new session, 200x50 unless `size` says.
   *
   * The session starts with a placeholder, and `argv` replaces it once tmux's own server is
   * up: under load that server has failed to start ("server exited unexpectedly"), and that
   * start alone is tried once more (the first error kept as the cause). The command under
   * test is started exactly once.
   */
  start(
    argv: readonly string[],
    size: { columns: number; rows: number } = { columns: 200, rows: 50 },
  ): void {
    const session = [
      'new-session',
      '-d',
      '-s',
      'cli',
      '-c',
      this.box.cwd,
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      'sleep 2147483',
    ];
    try {
      this.tmux(...session);
    } catch (first) {
      this.close();
      rmSync(this.socket, { force: true });
      try {
        this.tmux(...session);
      } catch (second) {
        throw new Error(`tmux did not start twice: ${(second as Error).message}`, { cause: first });
      }
    }
    this.serverPid = Number(this.tmux('display-message', '-p', '-t', 'cli', '#{pid}').trim());
    const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const script = `${quoted}; echo $? > '${this.statusFile}'`;
    this.tmux('respawn-pane', '-k', '-t', 'cli', '-c', this.box.cwd, 'bash', '-c', script);
  }

  /** Keys as tmux names them, e.g. `C-c`. */
  sendKeys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'cli', ...keys);
  }

  /** The exit status once the command has exited, else undefined. */
  exitStatus(): number | undefined {
    if (!existsSync(this.statusFile)) return undefined;
    const text = readFileSync(this.statusFile, 'utf8');
    return text.endsWith('\n') ? Number(text.trim()) : undefined;
  }

  /**
   * What the pane shows (with scrollback). `escapes`: with the colours and attributes of
   * each cell as SGR escape sequences (tmux's `capture-pane -e`).
   */
  screen(options: { escapes?: boolean } = {}): string {
    const e = options.escapes ? ['-e'] : [];
    return this.tmux('capture-pane', '-p', ...e, '-J', '-S', '-', '-t', 'cli');
  }

  /** tmux's own server process (it keeps the first client's command line). */
  private serverPid: number | undefined;

  /** Stops tmux's server and waits (up to 5 s) until its process is gone. */
  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // Not running.
    }
    const pid = this.serverPid;
    this.serverPid = undefined;
    if (!pid) return;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; waited < 5000; waited += 20) {
      try {
        process.kill(pid, 0);
      } catch {
        return; // gone
      }
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/** A node:http server on 127.0.0.1 that records every request it gets. */
export interface RecordingServer {
  url: string;
  port: number;
  requests: Array<{
    method: string;
    url: string;
    headers: IncomingMessage['headers'];
    body: string;
  }>;
  close(): Promise<void>;
}

export async function recordingServer(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) =>
    res.writeHead(500).end('recorded'),
): Promise<RecordingServer> {
  const requests: RecordingServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      if (body.length < 1_000_000) body += c;
    });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

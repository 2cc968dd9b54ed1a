import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI: these suites run what users run (`pnpm build` first). */
export const CLI = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));

export interface Sandbox extends AsyncDisposable {
  root: string;
  home: string;
  /** The user's config folder (`$XDG_CONFIG_HOME/mcpkit`). */
  userDir: string;
  /** A repository folder the CLI runs in. */
  repo: string;
  env: Record<string, string>;
  /** Writes a file (a string as is, anything else as JSON), creating folders. */
  write(file: string, content: unknown): string;
  /** Runs the built CLI in `cwd` (default: the repository) and waits for it to exit. */
  cli(args: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<CliRun>;
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * A fresh machine in a temporary folder: HOME and every XDG folder inside it, so that
 * neither the machine's own config nor another test's is ever read.
 */
export function sandbox(): Sandbox {
  const root = mkdtempSync(path.join(tmpdir(), 'mcpkit-hostile-config-'));
  const home = path.join(root, 'home');
  const repo = path.join(root, 'work', 'repo');
  mkdirSync(repo, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  const write = (file: string, content: unknown) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return file;
  };
  const cli = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
    new Promise<CliRun>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: options.cwd ?? repo,
        env: { ...env, ...options.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  return {
    root,
    home,
    userDir: path.join(env.XDG_CONFIG_HOME!, 'mcpkit'),
    repo,
    env,
    write,
    cli,
    async [Symbol.asyncDispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

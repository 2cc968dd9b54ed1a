import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI: these suites run what users run (`pnpm build` first). */
export const CLI = fileURLToPath(new URL('../../apps/cli/dist/bin.cjs', import.meta.url));

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
  cli(args: string[], options?: CliOptions): Promise<CliRun>;
  /** A stdio server entry that creates `marker` when it is started. */
  markerServer(marker: string): { command: string; args: string[] };
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Keep the CLI's stdin an open pipe that is never written (a terminal left alone). */
  openStdin?: boolean;
  /** Run as this user id (and group), e.g. 65534 (nobody), through setpriv. */
  uid?: number;
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
  const cli = (args: string[], options: CliOptions = {}) =>
    new Promise<CliRun>((resolve, reject) => {
      const argv = [process.execPath, CLI, ...args];
      const [file, ...rest] =
        options.uid === undefined
          ? argv
          : [
              'setpriv',
              `--reuid=${options.uid}`,
              `--regid=${options.uid}`,
              '--clear-groups',
              ...argv,
            ];
      const child = spawn(file!, rest, {
        cwd: options.cwd ?? repo,
        env: { ...env, ...options.env },
        stdio: [options.openStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
      child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        child.stdin?.destroy();
        resolve({ code, signal, stdout, stderr });
      });
    });
  return {
    root,
    home,
    userDir: path.join(env.XDG_CONFIG_HOME!, 'mcpkit'),
    repo,
    env,
    write,
    cli,
    markerServer: (marker) => ({
      command: process.execPath,
      args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'started')`],
    }),
    async [Symbol.asyncDispose]() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

import { spawn } from 'node:child_process';
import type { HttpAuth, HttpAuthChallenge } from '@mcpkit/jsonrpc';
import { HeadersHelperError } from './errors.js';
import { redact } from './redact.js';

export interface HeadersHelperOptions {
  /** The command, run through the shell. */
  command: string;
  serverName: string;
  serverUrl: string;
  /**
   * A helper from a project's `.mcp.json` runs with a scrubbed environment (no tokens or
   * keys from the user's shell). Default false (user- and local-scope configs).
   */
  scrubEnvironment?: boolean;
  /** Default 10 s. */
  timeoutMs?: number;
  /** Static headers from the config: the helper's override them. */
  headers?: Record<string, string>;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Variables a scrubbed helper keeps. */
const KEPT = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'TERM',
  'TMPDIR',
  'SHELL',
  'SystemRoot',
  'ComSpec',
  'PATHEXT',
];

/**
 * Headers from a command (`headersHelper` in a server's config): it prints a JSON object
 * of string values, e.g. `{"Authorization": "Bearer …"}`. Run before the first request
 * and again, once, when the server answers 401 or 403.
 */
export class HeadersHelperAuth implements HttpAuth {
  private current: Promise<Record<string, string>> | undefined;
  private rerun = false;

  constructor(private readonly options: HeadersHelperOptions) {}

  headers(): Promise<Record<string, string>> {
    this.current ??= this.run();
    // A failed run is not cached: the next request tries again.
    this.current.catch(() => {
      this.current = undefined;
    });
    return this.current.then((h) => ({ ...this.options.headers, ...h }));
  }

  async onUnauthorized(_challenge: HttpAuthChallenge): Promise<boolean> {
    if (this.rerun) return false;
    this.rerun = true;
    this.current = this.run();
    await this.current;
    // Fresh headers earned a fresh chance at the next refusal.
    setTimeout(() => {
      this.rerun = false;
    }, 0).unref?.();
    return true;
  }

  private run(): Promise<Record<string, string>> {
    const o = this.options;
    const timeoutMs = o.timeoutMs ?? 10_000;
    const base = o.env ?? process.env;
    const env: NodeJS.ProcessEnv = o.scrubEnvironment
      ? Object.fromEntries(KEPT.filter((k) => base[k] !== undefined).map((k) => [k, base[k]]))
      : { ...base };
    env.MCP_SERVER_NAME = o.serverName;
    env.MCP_SERVER_URL = o.serverUrl;
    const what = `server "${o.serverName}": headersHelper`;
    return new Promise((resolve, reject) => {
      const child = spawn(o.command, {
        shell: true,
        env,
        cwd: o.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
      let stdout = '';
      let stderr = '';
      let settled = false;
      const finish = (error: Error | undefined, value?: Record<string, string>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(value!);
      };
      const timer = setTimeout(() => {
        try {
          if (child.pid !== undefined)
            process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGKILL');
        } catch {}
        finish(
          new HeadersHelperError(
            `${what} did not finish within ${timeoutMs / 1000} s; it was stopped`,
          ),
        );
      }, timeoutMs);
      child.stdout!.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (stdout.length > 1_000_000) {
          child.kill('SIGKILL');
          finish(
            new HeadersHelperError(`${what} printed more than 1 MB; expected a small JSON object`),
          );
        }
      });
      child.stderr!.on('data', (c: Buffer) => {
        stderr = (stderr + c.toString()).slice(-2000);
      });
      child.on('error', (cause) =>
        finish(new HeadersHelperError(`${what} could not start: ${cause.message}`, { cause })),
      );
      child.on('close', (code, signal) => {
        if (settled) return;
        if (code !== 0) {
          const tail = redact(stderr.trim()).slice(-300);
          return finish(
            new HeadersHelperError(
              `${what} failed (${signal ? `signal ${signal}` : `exit code ${code}`})${tail ? `: ${tail}` : ''}`,
            ),
          );
        }
        let value: unknown;
        try {
          value = JSON.parse(stdout);
        } catch {
          return finish(
            new HeadersHelperError(
              `${what} printed something that is not JSON (${stdout.trim() ? `${stdout.trim().length} characters` : 'nothing'}); expected an object such as {"Authorization": "Bearer …"}`,
            ),
          );
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value))
          return finish(new HeadersHelperError(`${what} printed JSON that is not an object`));
        const bad = Object.entries(value).find(([, v]) => typeof v !== 'string');
        if (bad)
          return finish(
            new HeadersHelperError(
              `${what}: header "${bad[0]}" is not a string; every value must be one`,
            ),
          );
        finish(undefined, value as Record<string, string>);
      });
    });
  }
}

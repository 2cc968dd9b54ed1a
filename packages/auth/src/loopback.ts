import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError } from './errors.js';
import type { AuthorizationHandler } from './oauth.js';

export interface LoopbackOptions {
  /** A fixed port (from config); default a free one. */
  port?: number;
  /** Default `/callback`. */
  path?: string;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  timeoutMs?: number;
  /**
   * Opens the authorization URL: `true` (default) uses the system's browser opener,
   * `false` only prints it, or a function of your own.
   */
  open?: boolean | ((url: string) => void | Promise<void>);
  /** Where the URL to visit is printed. Default stderr. */
  print?: (line: string) => void;
}

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}h1{font-size:1.4rem}</style>
</head><body><h1>${title}</h1><p>${body}</p></body></html>`;

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The system's way to open a URL in the default browser. */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
}

/**
 * The user's side of the authorization code flow: a redirect listener on 127.0.0.1, the
 * browser opened at the authorization URL (or the URL printed), and a page that tells the
 * user they may close the tab.
 */
export class LoopbackAuthorization implements AuthorizationHandler {
  private server: Server | undefined;
  private uri: string | undefined;
  private waiting: ((url: URL) => void) | undefined;

  constructor(private readonly options: LoopbackOptions = {}) {}

  async redirectUri(): Promise<string> {
    if (this.uri) return this.uri;
    const path = this.options.path ?? '/callback';
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== path) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const error = url.searchParams.get('error');
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(
        error
          ? page(
              'Authorization failed',
              `The server said: ${escapeHtml(error)}${url.searchParams.get('error_description') ? ` (${escapeHtml(url.searchParams.get('error_description')!)})` : ''}. You can close this tab and try again.`,
            )
          : page('Signed in', 'mcpkit has what it needs. You can close this tab.'),
      );
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve?.(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (cause) =>
        reject(
          new AuthError(
            `could not listen for the authorization redirect on 127.0.0.1:${this.options.port ?? 0}: ${cause.message}`,
            undefined,
            { cause },
          ),
        ),
      );
      server.listen(this.options.port ?? 0, '127.0.0.1', resolve);
    });
    this.server = server;
    this.uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
    return this.uri;
  }

  async authorize(url: URL): Promise<URL> {
    await this.redirectUri();
    const timeoutMs = this.options.timeoutMs ?? 300_000;
    const arrived = new Promise<URL>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(
          new AuthError(
            `no answer from the browser within ${Math.round(timeoutMs / 1000)} s; authorization abandoned`,
          ),
        );
      }, timeoutMs);
      this.waiting = (callback) => {
        clearTimeout(timer);
        resolve(callback);
      };
    });
    const print = this.options.print ?? ((line: string) => process.stderr.write(`${line}\n`));
    const open = this.options.open ?? true;
    if (typeof open === 'function') await open(url.href);
    else if (open) {
      print(`Opening your browser to authorize. If it does not open, visit:\n  ${url.href}`);
      openInBrowser(url.href);
    } else print(`To authorize, visit:\n  ${url.href}`);
    try {
      return await arrived;
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.uri = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TimeoutError } from '@mcpkit/jsonrpc';
import { type BrowserOpenerOptions, openInBrowser } from './browser-opener.js';
import { authDefaults, checkPositive } from './defaults.js';
import { checkEndpoint } from './endpoint.js';
import { AuthError } from './errors.js';
import type { AuthorizationHandler, AuthorizeOptions } from './oauth.js';

export interface LoopbackOptions {
  /** A fixed port (from config); default a free one. */
  port?: number;
  /** Default `/callback`. */
  path?: string;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  timeoutMs?: number;
  /**
   * Opens the authorization URL: `true` (default) uses the system's browser opener
   * (`xdg-open`, `open`, or Windows' URL handler, never through a shell), `false` only
   * prints it, or a function of your own. Whichever it is, it is given only a URL that
   * passed the endpoint rule.
   */
  open?: boolean | ((url: string) => void | Promise<void>);
  /** For the system opener: the platform and `spawn` to use (tests). */
  opener?: BrowserOpenerOptions;
  /** Where the URL to visit is printed. Default stderr. */
  print?: (line: string) => void;
  /** Names the server in messages (`server "x"`). */
  label?: string;
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

/**
 * The user's side of the authorization code flow: a redirect listener on 127.0.0.1, the
 * browser opened at the authorization URL (or the URL printed), and a page that tells the
 * user they may close the tab.
 */
export class LoopbackAuthorization implements AuthorizationHandler {
  private server: Server | undefined;
  private uri: string | undefined;
  private waiting: ((url: URL) => void) | undefined;

  constructor(private readonly options: LoopbackOptions = {}) {
    checkPositive('timeoutMs', options.timeoutMs);
  }

  /** Starts the listener (once) and gives the redirect URI to register and send. */
  async redirectUri(): Promise<string> {
    if (this.uri) return this.uri;
    const path = this.options.path ?? '/callback';
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // Each answer ends its connection: nothing keeps the listener (or the process) up.
      if (url.pathname !== path) {
        res.writeHead(404, { 'content-type': 'text/plain', connection: 'close' }).end('not found');
        return;
      }
      const error = url.searchParams.get('error');
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
      });
      const resolve = this.waiting;
      this.waiting = undefined;
      const arrived = new URL(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}${req.url}`,
      );
      // Handed over once the page is written, so closing the listener cannot cut it off.
      res.end(
        error
          ? page(
              'Authorization failed',
              `The server said: ${escapeHtml(error)}${url.searchParams.get('error_description') ? ` (${escapeHtml(url.searchParams.get('error_description')!)})` : ''}. You can close this tab and try again.`,
            )
          : // Not "signed in": the answer is checked after this page (state, issuer, the
            // ID token), and a forged or mixed-up one is refused there.
            page(
              'Answer received',
              'The application that asked for this sign-in has the answer; it checks it and tells you there whether you are signed in. You can close this tab.',
            ),
        () => resolve?.(arrived),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (cause) =>
        reject(
          new AuthError(
            `${this.options.label ?? 'authorization'}: could not listen for the authorization redirect on 127.0.0.1:${this.options.port ?? 0}: ${cause.message}; free the port or choose another callback port`,
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

  /**
   * Has the user visit `url` and waits for the redirect, until `timeoutMs` or `signal`.
   * The listener is closed whatever happens.
   */
  async authorize(url: URL, options: AuthorizeOptions = {}): Promise<URL> {
    const { signal } = options;
    const label = this.options.label ?? 'authorization';
    const timeoutMs = this.options.timeoutMs ?? authDefaults.interactiveTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      signal?.throwIfAborted();
      // Checked again here, whoever built it: this is what a browser is sent to.
      const target = checkEndpoint(url.href, {
        label,
        field: 'the authorization URL',
        where: 'the sign-in about to be opened',
      }).href;
      await this.redirectUri();
      // Ends the wait for the browser and for the opener alike.
      const expired = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          reject(
            new TimeoutError(
              `${label}: no answer from the browser within ${Math.round(timeoutMs / 1000)} s; authorization abandoned. Sign in again and finish in the browser sooner`,
              timeoutMs,
            ),
          );
        }, timeoutMs);
        onAbort = () => reject(signal!.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      const arrived = new Promise<URL>((resolve) => {
        this.waiting = resolve;
      });
      const print = this.options.print ?? ((line: string) => process.stderr.write(`${line}\n`));
      const open = options.open ?? this.options.open ?? true;
      let opening: Promise<void> = Promise.resolve();
      if (typeof open === 'function') opening = Promise.resolve().then(() => open(target));
      else if (open) {
        print(`Opening your browser to authorize. If it does not open, visit:\n  ${target}`);
        openInBrowser(target, this.options.opener);
      } else print(`To authorize, visit:\n  ${target}`);
      // The opener (a test's stand-in browser, say) may finish after the redirect came;
      // it is waited for, but not past the deadline. An opener that fails ends the wait.
      const both = Promise.all([arrived, opening]).then(([callback]) => callback);
      return await Promise.race([both, expired]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      this.waiting = undefined;
      await this.close();
    }
  }

  /** Stops listening and drops any connection still open. Safe to call more than once. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.uri = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

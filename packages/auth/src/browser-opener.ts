import { type SpawnOptions, spawn } from 'node:child_process';
import { checkEndpoint } from './endpoint.js';

/** A way to start a program: `node:child_process`'s `spawn`, or a test's stand-in. */
export type SpawnLike = (
  command: string,
  args: readonly string[],
  options: SpawnOptions,
) => { on(event: 'error', listener: (error: Error) => void): unknown; unref(): void };

export interface BrowserOpenerOptions {
  /** Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Default `node:child_process`'s `spawn`. */
  spawn?: SpawnLike;
}

/**
 * The program and arguments that open `url` in the default browser. Never a shell: the
 * URL is one argument of its own. On Windows `cmd /c start` would parse the URL as a
 * command line (`&`, `|`, `^`), so the URL goes to the shell's URL handler directly.
 */
export function browserCommand(
  url: string,
  platform: NodeJS.Platform = process.platform,
): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32')
    return { command: 'rundll32.exe', args: ['url.dll,FileProtocolHandler', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Opens `url` in the system browser, once it passes the endpoint rule (https, or http on
 * this machine; no user info; nothing a command line could misread). A missing opener is
 * not an error: the URL is printed beside it for the user to visit.
 */
export function openInBrowser(url: string, options: BrowserOpenerOptions = {}): void {
  const checked = checkEndpoint(url, {
    label: 'authorization',
    field: 'the URL to open in the browser',
    where: 'the sign-in',
  });
  const { command, args } = browserCommand(checked.href, options.platform);
  const child = (options.spawn ?? spawn)(command, args, {
    stdio: 'ignore',
    detached: true,
    shell: false,
    windowsHide: true,
  });
  child.on('error', () => {});
  child.unref();
}

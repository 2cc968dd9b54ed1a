import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { ResolvedServer } from '@mcpkit/config';
import { tokenStore } from '../core/open-manager.js';
import { type CliContext, workingDirectory } from '../core/server-selection.js';

/** One thing `mcpkit doctor` found about a server. */
export interface Finding {
  /** What was looked at: `config`, `variable`, `status`, `command`, `url`, `auth`, `connect`, `lists`, `tools`, `ping`, `stderr`, `warning`. */
  check: string;
  /** `error` and `warning` make doctor exit 1; `ok` and `info` do not. */
  level: 'ok' | 'info' | 'warning' | 'error';
  message: string;
  /** What to do about it, with the CLI's own commands and flags. */
  next?: string;
}

export const doctorDefaults = Object.freeze({
  /** The reachability request of a remote server, at most (`--timeout` lower wins). */
  urlProbeTimeoutMs: 10_000,
});

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where a stdio server's command would be found, the way the spawner finds it on POSIX:
 * a name with a slash is relative to the server's working directory, a bare name is
 * looked up on the PATH the server gets (the entry's own `env.PATH`, else the CLI's).
 * Nothing is run: only the file system is asked.
 */
export async function commandFinding(server: ResolvedServer, ctx: CliContext): Promise<Finding> {
  const config = server.config as { command: string; env?: Record<string, string> };
  const command = config.command;
  const cwd = workingDirectory(server, ctx);
  const source = server.source;
  if (command.includes('/')) {
    const file = path.resolve(cwd, command);
    if (await executable(file)) return { check: 'command', level: 'ok', message: file };
    return {
      check: 'command',
      level: 'error',
      message: `"${command}" is not an executable file (looked at ${file})`,
      next: `fix "command" of "${server.name}" in ${source}`,
    };
  }
  const searchPath = config.env?.PATH ?? ctx.env.PATH ?? '';
  for (const dir of searchPath.split(path.delimiter)) {
    // An empty PATH element means the working directory, as for execvp.
    const file = path.resolve(cwd, dir || '.', command);
    if (await executable(file)) return { check: 'command', level: 'ok', message: file };
  }
  return {
    check: 'command',
    level: 'error',
    message: `"${command}" is not on PATH`,
    next: `install it, or set "command" of "${server.name}" to its full path in ${source}`,
  };
}

const TLS_CODE =
  /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|HOSTNAME_MISMATCH|ALTNAME|EPROTO/;

/**
 * One bounded request to a remote server's URL: any HTTP answer means it is reachable
 * (its status is said, not judged: an MCP endpoint may well answer 405 to HEAD). No
 * header of the entry is sent (they may hold secrets), no redirect followed, no body read.
 */
export async function urlFinding(url: string, server: string, timeoutMs: number): Promise<Finding> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return {
      check: 'url',
      level: 'error',
      message: `"${url}" is not a URL`,
      next: `fix "url" of "${server}" (mcpkit get ${server} shows the entry)`,
    };
  }
  const secure = target.protocol === 'https:' || target.protocol === 'wss:';
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(target.protocol))
    return {
      check: 'url',
      level: 'error',
      message: `${target.protocol} URLs are not supported`,
      next: `use an http(s) or ws(s) URL for "${server}"`,
    };
  target.protocol = secure ? 'https:' : 'http:';
  const shown = `${target.origin}${target.pathname}`;
  const started = performance.now();
  const outcome = await new Promise<{ status?: number; error?: NodeJS.ErrnoException }>(
    (resolve) => {
      const req = (secure ? httpsRequest : httpRequest)(target, {
        method: 'HEAD',
        signal: AbortSignal.timeout(timeoutMs),
        headers: { 'user-agent': 'mcpkit-doctor' },
      });
      req.on('response', (res) => {
        resolve({ status: res.statusCode ?? 0 });
        res.destroy();
        req.destroy();
      });
      req.on('error', (error) => resolve({ error }));
      req.end();
    },
  );
  const ms = Math.round(performance.now() - started);
  if (outcome.status !== undefined)
    return {
      check: 'url',
      level: 'ok',
      message: `${shown} answered HTTP ${outcome.status} in ${ms} ms`,
    };
  const error = outcome.error!;
  const code = error.code ?? error.name;
  if (error.name === 'AbortError' || code === 'ABORT_ERR' || code === 'TimeoutError')
    return {
      check: 'url',
      level: 'error',
      message: `${shown} did not answer within ${timeoutMs} ms`,
      next: `check that the server of "${server}" is running and that nothing blocks the way to it; --timeout <ms> allows longer`,
    };
  if (TLS_CODE.test(code))
    return {
      check: 'url',
      level: 'error',
      message: `TLS with ${target.host} failed: ${code}: ${error.message}`,
      next: `the server's certificate is not trusted here: fix it on the server, or point NODE_EXTRA_CA_CERTS at your CA's certificate`,
    };
  return {
    check: 'url',
    level: 'error',
    message: `${shown} is not reachable: ${code}${error.message && !error.message.includes(code) ? ` (${error.message})` : ''}`,
    next:
      code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `the host name does not resolve: check "url" of "${server}" (mcpkit get ${server})`
        : `check that the server of "${server}" is running and its URL is right (mcpkit get ${server})`,
  };
}

function minutes(ms: number): string {
  const m = Math.round(Math.abs(ms) / 60_000);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

/**
 * How a remote server signs in, and for OAuth what the token store holds: whether there
 * is a token and when it expires. No token (nor any part of one) is ever printed.
 */
export async function authFinding(
  server: ResolvedServer,
  ctx: CliContext,
  now = Date.now(),
): Promise<Finding | undefined> {
  const config = server.config as {
    type?: string;
    url?: string;
    headers?: Record<string, string>;
    headersHelper?: string;
  };
  if (!['http', 'streamable-http', 'sse'].includes(config.type ?? '') || !config.url) return;
  if (config.headersHelper)
    return { check: 'auth', level: 'info', message: 'headers from its headersHelper command' };
  if (Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    return { check: 'auth', level: 'info', message: 'an Authorization header from the config' };
  const { canonicalResource } = await import('@mcpkit/auth');
  let record: Awaited<ReturnType<ReturnType<typeof tokenStore>['get']>>;
  try {
    record = await tokenStore(ctx).get(canonicalResource(config.url));
  } catch (error) {
    return {
      check: 'auth',
      level: 'warning',
      message: `the token store could not be read: ${(error as Error).message}`,
      next: `run "mcpkit logout ${server.name}" then "mcpkit login ${server.name}"`,
    };
  }
  const tokens = record?.issuer ? record.issuers[record.issuer]?.tokens : undefined;
  if (!tokens)
    return {
      check: 'auth',
      level: 'info',
      message: 'not signed in (no OAuth tokens stored)',
      next: `if the server asks for a sign-in, run "mcpkit login ${server.name}"`,
    };
  if (tokens.expires_at === undefined)
    return { check: 'auth', level: 'ok', message: 'signed in (the token has no stated expiry)' };
  const left = tokens.expires_at - now;
  if (left > 0)
    return {
      check: 'auth',
      level: 'ok',
      message: `signed in; the token expires in ${minutes(left)}`,
    };
  if (tokens.refresh_token)
    return {
      check: 'auth',
      level: 'info',
      message: `the token expired ${minutes(left)} ago; it is refreshed at the next connect`,
    };
  return {
    check: 'auth',
    level: 'warning',
    message: `the token expired ${minutes(left)} ago and cannot be refreshed`,
    next: `run "mcpkit login ${server.name}"`,
  };
}

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './io.js';
import type { CliContext } from './server-selection.js';

export const serveTokenDefaults = Object.freeze({
  /** A token shorter than this is refused. */
  minChars: 16,
  /** What is read of a token file, at most. */
  maxFileBytes: 4096,
});

/** `$XDG_STATE_HOME/mcpkit/serve-token`, else `~/.local/state/mcpkit/serve-token`. */
export function serveTokenFile(ctx: CliContext): string {
  const state = ctx.env.XDG_STATE_HOME;
  const base = state && path.isAbsolute(state) ? state : path.join(ctx.home, '.local', 'state');
  return path.join(base, 'mcpkit', 'serve-token');
}

/** Where `serve --http`'s token came from, for the line it prints. */
export type ServeAuth =
  | { kind: 'none' }
  | { kind: 'token'; token: string; source: 'flag' | 'env' | 'file' }
  | { kind: 'token'; token: string; source: 'state'; file: string; created: boolean };

/** A token as a header can carry it: visible ASCII, long enough. */
function checkToken(token: string, where: string): string {
  if (token.length < serveTokenDefaults.minChars)
    throw new UsageError(
      `the bearer token (${where}) must be at least ${serveTokenDefaults.minChars} characters`,
    );
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new UsageError(
      `the bearer token (${where}) must be visible ASCII characters only (no spaces or controls)`,
    );
  return token;
}

/**
 * Reads a token file: a regular file, private to its owner (no group or other bits on
 * POSIX: a token others can read is no secret), one token, an ending newline allowed.
 * Anything else is refused, never used.
 */
async function readTokenFile(file: string, what: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NOFOLLOW: the state file is ours, never a link planted to somewhere else.
    handle = await open(file, constants.O_RDONLY | (what === 'state' ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the token file ${file}: ${code ?? String(error)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UsageError(`the token file ${file} is not a regular file`);
    if (process.platform !== 'win32') {
      if ((stat.mode & 0o077) !== 0)
        throw new UsageError(
          `the token file ${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}): "chmod 600" it, or ${what === 'state' ? 'delete it for a new token' : 'use another file'}`,
        );
      const uid = process.getuid?.();
      if (uid !== undefined && stat.uid !== uid)
        throw new UsageError(`the token file ${file} belongs to another user (uid ${stat.uid})`);
    }
    if (stat.size > serveTokenDefaults.maxFileBytes)
      throw new UsageError(
        `the token file ${file} is larger than ${serveTokenDefaults.maxFileBytes} bytes`,
      );
    const buffer = Buffer.alloc(serveTokenDefaults.maxFileBytes);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    return checkToken(text, `in ${file}`);
  } finally {
    await handle.close();
  }
}

/**
 * The token file of the user's state directory: read when it exists (a token stays the same
 * across runs, so the hosts configured with it keep working), else made: a new random token
 * in a 0600 file (its folder made 0700), written whole under a temporary name and linked
 * into place, so that two gateways starting at once end up with the same one.
 */
async function stateToken(file: string): Promise<{ token: string; created: boolean }> {
  try {
    await lstat(file);
    return { token: await readTokenFile(file, 'state'), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('base64url');
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, `${token}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, file);
  } catch (error) {
    // Another gateway made it first: use that one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { token: await readTokenFile(file, 'state'), created: false };
  } finally {
    await rm(temp, { force: true });
  }
  return { token, created: true };
}

/**
 * How `serve --http` authenticates its clients: `--no-auth` (loopback only), `--token-file`
 * or `--token` (one of them), else `MCPKIT_SERVE_TOKEN`, else the state file's token.
 * `--no-auth` with a token from anywhere is refused: which one was meant is not known.
 */
export async function resolveServeAuth(
  ctx: CliContext,
  flags: {
    token?: string | undefined;
    'token-file'?: string | undefined;
    'no-auth'?: boolean | undefined;
  },
  loopback: boolean,
): Promise<ServeAuth> {
  const env = ctx.env.MCPKIT_SERVE_TOKEN;
  const given = [
    flags['no-auth'] ? '--no-auth' : undefined,
    flags['token-file'] !== undefined ? '--token-file' : undefined,
    flags.token !== undefined ? '--token' : undefined,
    flags['no-auth'] && env !== undefined ? 'MCPKIT_SERVE_TOKEN' : undefined,
  ].filter((s) => s !== undefined);
  if (given.length > 1)
    throw new UsageError(`${given.join(' and ')} exclude each other: give one way to authenticate`);
  if (flags['no-auth']) {
    if (!loopback)
      throw new UsageError(
        '--no-auth is allowed on a loopback bind only (127.0.0.1, ::1, localhost): every other address needs a token',
      );
    return { kind: 'none' };
  }
  if (flags['token-file'] !== undefined)
    return {
      kind: 'token',
      token: await readTokenFile(path.resolve(ctx.cwd, flags['token-file']), 'flag'),
      source: 'file',
    };
  if (flags.token !== undefined)
    return { kind: 'token', token: checkToken(flags.token, '--token'), source: 'flag' };
  if (env !== undefined)
    return { kind: 'token', token: checkToken(env, 'MCPKIT_SERVE_TOKEN'), source: 'env' };
  const file = serveTokenFile(ctx);
  const { token, created } = await stateToken(file);
  return { kind: 'token', token, source: 'state', file, created };
}

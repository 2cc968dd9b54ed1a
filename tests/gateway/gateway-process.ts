import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StdioTransport } from '@mcpkit/transport-stdio';
import { everythingEntry } from '../support/everything.js';

/** The built CLI (`pnpm turbo run build --filter mcpkit...` first). */
export const cliBin = fileURLToPath(new URL('../../apps/cli/dist/bin.js', import.meta.url));
export const faultServer = fileURLToPath(
  new URL('../fixtures/faults/fault-server.mjs', import.meta.url),
);
export const modernServer = fileURLToPath(
  new URL('../fixtures/modern-server.mjs', import.meta.url),
);
export const conformanceServer = fileURLToPath(
  new URL('../fixtures/conformance-server.mjs', import.meta.url),
);

/** Put in a backend's environment: the gateway must never send it anywhere. */
export const BACKEND_SECRET = 'backend-secret-4f2a9c1e7d';

/** The three backends of the suite: server-everything, a 2026-07-28 SDK v2 server, a fault fixture. */
export function backends(): Record<string, unknown> {
  return {
    everything: { command: process.execPath, args: [everythingEntry, 'stdio'] },
    modern: { command: process.execPath, args: [modernServer, 'stdio'] },
    fault: {
      command: process.execPath,
      args: [faultServer, 'crash-call'],
      env: { FAULT_API_KEY: BACKEND_SECRET },
    },
  };
}

/** Where `mcpkit serve --http` keeps its token under a HOME without XDG_STATE_HOME. */
export const serveTokenFileOf = (home: string): string =>
  path.join(home, '.local', 'state', 'mcpkit', 'serve-token');

/** A private HOME (no user config, no token store of the machine) and the CLI's argv. */
export function gatewayArgs(
  servers: Record<string, unknown>,
  extra: string[] = [],
): { args: string[]; env: NodeJS.ProcessEnv; home: string; cleanup: () => void } {
  const home = mkdtempSync(path.join(tmpdir(), 'mcpkit-gateway-home-'));
  return {
    home,
    args: [
      cliBin,
      'serve',
      '-c',
      JSON.stringify({ mcpServers: servers }),
      '--strict-config',
      ...extra,
    ],
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, 'data') },
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

export interface HttpGateway {
  readonly url: URL;
  readonly child: ChildProcessWithoutNullStreams;
  /** The gateway's private HOME. */
  readonly home: string;
  /**
   * The bearer token of the user's state file, read from it as a host would (undefined
   * when the run used `--token`, `--token-file`, the environment or `--no-auth`).
   */
  readonly token: string | undefined;
  /** `Authorization: Bearer <token>` when there is a state-file token, else nothing. */
  readonly headers: Record<string, string>;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Starts `mcpkit serve --http 127.0.0.1:0 …` and waits for its "listening on" line. With no
 * token option, the gateway makes its token file in the private HOME: `token` and `headers`.
 */
export async function startHttpGateway(
  servers: Record<string, unknown>,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
  bind = '127.0.0.1:0',
): Promise<HttpGateway> {
  const { args, env: base, home, cleanup } = gatewayArgs(servers, ['--http', bind, ...extra]);
  const child = spawn(process.execPath, args, { env: { ...base, ...env } });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    cleanup();
  };
  let url: URL;
  try {
    url = await new Promise<URL>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (\S+)/.exec(stderr);
        if (match) resolve(new URL(match[1]!));
      });
      child.once('exit', (code) =>
        reject(new Error(`mcpkit serve exited (${code}) before listening:\n${stderr}`)),
      );
    });
  } catch (error) {
    // A gateway that refused to start (the tests of bad configs) still made its HOME.
    await close();
    throw error;
  }
  const tokenFile = serveTokenFileOf(home);
  const token = existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined;
  return {
    url,
    child,
    home,
    token,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    stderr: () => stderr,
    close,
  };
}

/** A stdio transport that starts `mcpkit serve` with `gatewayArgs`'s argv and environment. */
export function gatewayStdio(args: string[], env: NodeJS.ProcessEnv): StdioTransport {
  return new StdioTransport({
    command: process.execPath,
    args,
    env: env as Record<string, string>,
    name: 'gateway',
  });
}

/** The text of a tool result's content, joined. */
export const resultText = (result: unknown): string =>
  (result as { content: Array<{ text?: string }> }).content.map((c) => c.text ?? '').join('');

import {
  type EnterpriseAuthProvider,
  LoopbackAuthorization,
  type OAuthProvider,
} from '@mcpkit/auth';
import type { LoadResult, ResolvedServer } from '@mcpkit/config';
import { TimeoutError } from '@mcpkit/jsonrpc';
import { oauthProviderFor } from '@mcpkit/manager';
import { assertMayContact } from '../core/gate.js';
import { identityProviderOf } from '../core/identity-provider.js';
import { UsageError } from '../core/io.js';
import { tokenStore } from '../core/open-manager.js';
import type { CliContext } from '../core/server-selection.js';
import type { Shutdown } from '../core/signals.js';
import type { Output } from '../terminal/output.js';

export const loginDefaults = Object.freeze({
  /** The whole of `mcpkit login`: discovery, registration, the browser, the token. */
  loginTimeoutMs: 300_000,
});

/** The OAuth provider of a remote entry (the manager's wiring, the CLI's token store). */
function oauthFor(
  server: ResolvedServer,
  ctx: CliContext,
  interactive?: LoopbackAuthorization,
): Promise<OAuthProvider | EnterpriseAuthProvider> {
  assertMayContact(server);
  return oauthProviderFor(
    server,
    {
      store: tokenStore(ctx),
      clientName: 'mcpkit CLI',
      identityProvider: () => identityProviderOf(ctx),
    },
    interactive,
  );
}

export interface AuthCommandOptions {
  noBrowser: boolean;
  /** The overall deadline of `login`. */
  loginTimeoutMs: number;
  shutdown: Shutdown;
}

/**
 * `mcpkit login <server>` and `mcpkit logout <server>`. Login is bounded as a whole (the
 * provider's `login({ signal, timeoutMs })`: every request, the wait for the browser), a
 * signal ends it, and the loopback listener is closed on every path out (a failed
 * registration used to leave it open and the process alive forever).
 */
export async function authCommand(
  io: Output,
  ctx: CliContext,
  resolved: LoadResult,
  command: 'login' | 'logout',
  rest: string[],
  options: AuthCommandOptions,
): Promise<number> {
  if (rest.length !== 1) throw new UsageError(`usage: mcpkit ${command} <server>`);
  const name = rest[0]!;
  const server = resolved.servers.find((s) => s.name === name);
  if (!server)
    throw new UsageError(`no server named "${name}"; "mcpkit list" shows the configured servers`);
  assertMayContact(server);
  const config = server.config;
  if (
    !('url' in config) ||
    config.type === 'ws' ||
    config.type === 'ws-ide' ||
    config.type === 'sse-ide'
  )
    throw new UsageError(`server "${name}" is not an HTTP server; only those sign in with OAuth`);
  const oauth = 'oauth' in config ? config.oauth : undefined;
  if (command === 'logout') {
    await (await oauthFor(server, ctx)).logout();
    io.stdout(
      oauth?.xaa
        ? `Logged out of ${name}: its tokens and the sign-in at the identity provider are forgotten.\n`
        : `Logged out of ${name}: its tokens and registration are forgotten.\n`,
    );
    return 0;
  }
  // An enterprise-managed entry signs in at the identity provider (its callback port, if set).
  const callbackPort = oauth?.xaa
    ? (await identityProviderOf(ctx))?.callbackPort
    : oauth?.callbackPort;
  const loopback = new LoopbackAuthorization({
    ...(callbackPort ? { port: callbackPort } : {}),
    open: !options.noBrowser,
    print: (line) => io.link(`${line}\n`),
    timeoutMs: options.loginTimeoutMs,
  });
  let provider: OAuthProvider | EnterpriseAuthProvider;
  try {
    provider = await oauthFor(server, ctx, loopback);
  } catch (error) {
    await loopback.close();
    throw error;
  }
  const untrack = options.shutdown.track({ close: () => provider.close() });
  try {
    await provider.login({ signal: options.shutdown.signal, timeoutMs: options.loginTimeoutMs });
  } catch (error) {
    if (TimeoutError.isInstance(error) && error.timeoutMs === options.loginTimeoutMs)
      // Worded from the facts (server, budget), not from the provider's message.
      throw new TimeoutError(
        `server "${name}": the sign-in did not finish within ${options.loginTimeoutMs / 1000} s; run "mcpkit login ${name}" again and complete it in the browser (--login-timeout <ms> allows longer)`,
        options.loginTimeoutMs,
        { cause: error },
      );
    throw error;
  } finally {
    // The provider closes its listener itself; this also covers a throw before login().
    await provider.close().catch(() => {});
    await loopback.close();
    untrack();
  }
  io.stdout(`Logged in to ${name}.\n`);
  return 0;
}

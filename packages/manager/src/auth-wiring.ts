import path from 'node:path';
import type {
  AuthorizationHandler,
  EnterpriseAuthProvider,
  IdentityProviderConfig,
  OAuthProvider,
  TokenStore,
} from '@mcpkit/auth';
import type { ResolvedServer } from '@mcpkit/config';
import type { HttpAuth } from '@mcpkit/jsonrpc';

/** How the manager authenticates remote servers. */
export interface ManagerAuthOptions {
  /** Where OAuth tokens and registrations are kept. Default: memory only (lost on exit). */
  store?: TokenStore;
  /**
   * The interactive sign-in (e.g. `new LoopbackAuthorization()`), used only by
   * `authenticate()` and the `authenticate` pseudo-tool — never during `connectAll`.
   * `false` (default): servers that need a sign-in stay `needs-auth`.
   */
  interactive?: AuthorizationHandler | false;
  /** How long a needs-auth verdict is kept before the server is tried again. Default 15 min. */
  needsAuthCacheMs?: number;
  /** `client_name` sent when registering dynamically. Default `mcpkit`. */
  clientName?: string;
  /**
   * The enterprise identity provider of entries with `oauth.xaa` (enterprise-managed
   * authorization), or how to read it (asked only when such an entry connects).
   * Without it such an entry fails with `XaaError` (stage `idp-settings`).
   */
  identityProvider?:
    | IdentityProviderConfig
    | (() => Promise<IdentityProviderConfig | undefined> | IdentityProviderConfig | undefined);
}

type RemoteConfig = Extract<ResolvedServer['config'], { type: 'http' | 'streamable-http' | 'sse' }>;

/** Where a stdio server runs: its project file's folder for project/dynamic files, else `cwd`. */
export function workingDirectoryOf(server: ResolvedServer, cwd: string): string {
  if (
    (server.scope === 'project' || server.scope === 'dynamic') &&
    /\.json$/i.test(server.source) &&
    path.isAbsolute(server.source)
  ) {
    return path.dirname(server.source);
  }
  return cwd;
}

/**
 * The provider of an entry with `oauth.xaa`: the user's sign-in at the identity provider
 * (kept in the store, shared by every such entry), exchanged there for an ID-JAG, which
 * the server's authorization server turns into an access token.
 */
async function enterpriseProviderFor(
  server: ResolvedServer,
  auth: ManagerAuthOptions,
  interactive: AuthorizationHandler | undefined,
): Promise<EnterpriseAuthProvider> {
  const config = server.config as RemoteConfig;
  const oauth = config.oauth ?? {};
  const { EnterpriseAuthProvider, IdentityProviderSession, XaaError } = await import(
    '@mcpkit/auth'
  );
  const idp =
    typeof auth.identityProvider === 'function'
      ? await auth.identityProvider()
      : auth.identityProvider;
  if (!idp)
    throw new XaaError(
      `server "${server.name}": enterprise-managed authorization ("oauth.xaa") needs identity-provider settings (issuer, clientId), and none are configured`,
      'idp-settings',
      server.name,
    );
  if (!oauth.clientId)
    throw new XaaError(
      `server "${server.name}": enterprise-managed authorization ("oauth.xaa") needs "oauth.clientId", this client's id at the server's authorization server`,
      'idp-settings',
      server.name,
    );
  const session = new IdentityProviderSession({
    ...idp,
    serverName: server.name,
    ...(auth.store ? { store: auth.store } : {}),
    ...(interactive ? { interactive } : {}),
  });
  return new EnterpriseAuthProvider({
    serverUrl: config.url,
    serverName: server.name,
    ...(auth.store ? { store: auth.store } : {}),
    clientId: oauth.clientId,
    ...(oauth.scopes ? { scopes: oauth.scopes } : {}),
    ...(oauth.authServerMetadataUrl
      ? { authorizationServerMetadataUrl: oauth.authServerMetadataUrl }
      : {}),
    idp: {
      clientId: idp.clientId,
      ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
      tokenEndpoint: async () => (await session.metadata()).token_endpoint,
      idToken: (signal) => session.idToken(signal),
      signIn: (options) => session.signIn(options),
      signOut: () => session.signOut(),
    },
  });
}

/** The OAuth provider of a remote entry; interactive only when `interactive` is given. */
export async function oauthProviderFor(
  server: ResolvedServer,
  auth: ManagerAuthOptions,
  interactive?: AuthorizationHandler,
): Promise<OAuthProvider | EnterpriseAuthProvider> {
  const config = server.config as RemoteConfig;
  const oauth = config.oauth;
  if (oauth?.xaa) return enterpriseProviderFor(server, auth, interactive);
  const { OAuthProvider } = await import('@mcpkit/auth');
  return new OAuthProvider({
    serverUrl: config.url,
    serverName: server.name,
    ...(auth.store ? { store: auth.store } : {}),
    clientMetadata: { client_name: auth.clientName ?? 'mcpkit' },
    ...(oauth?.clientId ? { client: { clientId: oauth.clientId } } : {}),
    ...(oauth?.scopes ? { scopes: oauth.scopes } : {}),
    ...(oauth?.authServerMetadataUrl
      ? { authorizationServerMetadataUrl: oauth.authServerMetadataUrl }
      : {}),
    ...(interactive ? { interactive } : {}),
  });
}

/**
 * How a remote entry authenticates: its `headersHelper` (run through the shell; a scrubbed
 * environment for project files), else OAuth with stored tokens — unless the entry sets
 * its own Authorization header.
 */
export async function httpAuthFor(
  server: ResolvedServer,
  auth: ManagerAuthOptions,
  context: { cwd: string; env: Readonly<Record<string, string | undefined>> },
): Promise<HttpAuth | undefined> {
  const config = server.config as RemoteConfig;
  if (config.headersHelper) {
    const { HeadersHelperAuth } = await import('@mcpkit/auth');
    return new HeadersHelperAuth({
      command: config.headersHelper,
      serverName: server.name,
      serverUrl: config.url,
      scrubEnvironment: server.scope === 'project',
      cwd: workingDirectoryOf(server, context.cwd),
      env: context.env as NodeJS.ProcessEnv,
      ...(config.headers ? { headers: config.headers } : {}),
    });
  }
  if (Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    return undefined;
  return oauthProviderFor(server, auth);
}

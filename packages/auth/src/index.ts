/**
 * Authorization for MCP clients: an `HttpAuth` for the Streamable HTTP and SSE
 * transports' `auth` option.
 */
export { type ClientCredentialsOptions, ClientCredentialsProvider } from './client-credentials.js';
export {
  type AuthorizationServerMetadata,
  canonicalResource,
  type Discovered,
  discover,
  discoverAuthorizationServer,
  discoverProtectedResource,
  type ProtectedResourceMetadata,
  resourceCovers,
} from './discovery.js';
export {
  type EnterpriseAuthOptions,
  EnterpriseAuthProvider,
  type IdentityProviderSettings,
} from './enterprise.js';
export { AuthError, AuthErrorCode, HeadersHelperError, NeedsAuthError } from './errors.js';
export { HeadersHelperAuth, type HeadersHelperOptions } from './headers-helper.js';
export { LoopbackAuthorization, type LoopbackOptions } from './loopback.js';
export {
  type AuthorizationHandler,
  OAuthProvider,
  type OAuthProviderOptions,
  type PreRegisteredClient,
} from './oauth.js';
export { BaseProvider, type ProviderOptions } from './provider.js';
export { redact, rememberSecret } from './redact.js';
export {
  type AuthRecord,
  defaultAuthDir,
  FileTokenStore,
  KeychainTokenStore,
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
} from './store.js';
export { type BearerChallenge, parseBearerChallenge } from './www-authenticate.js';

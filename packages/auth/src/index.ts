/**
 * Authorization for MCP clients: an `HttpAuth` for the Streamable HTTP and SSE
 * transports' `auth` option.
 */
export {
  type BrowserOpenerOptions,
  browserCommand,
  openInBrowser,
  type SpawnLike,
} from './browser-opener.js';
export { type ClientCredentialsOptions, ClientCredentialsProvider } from './client-credentials.js';
export { authDefaults } from './defaults.js';
export {
  type AuthorizationServerMetadata,
  canonicalResource,
  type Discovered,
  type DiscoveryOptions,
  discover,
  discoverAuthorizationServer,
  discoverProtectedResource,
  type ProtectedResourceMetadata,
} from './discovery.js';
export {
  accessTokenHash,
  checkNonce,
  chooseDpopAlgorithm,
  type DpopAlgorithm,
  DpopKey,
  DpopNonces,
  type DpopProofRequest,
  type DpopSetting,
  dpopAlgorithms,
  htuOf,
  type StoredDpopKey,
} from './dpop.js';
export {
  checkEndpoint,
  type EndpointSource,
  isLoopbackHost,
} from './endpoint.js';
export {
  type EnterpriseAuthOptions,
  EnterpriseAuthProvider,
  type IdentityProviderSettings,
} from './enterprise.js';
export {
  AuthError,
  AuthErrorCode,
  AuthResponseTooLargeError,
  HeadersHelperError,
  NeedsAuthError,
  UnsafeEndpointError,
} from './errors.js';
export type { FetchLike } from './fetch-bounded.js';
export { HeadersHelperAuth, type HeadersHelperOptions } from './headers-helper.js';
export {
  type IdentityProviderConfig,
  IdentityProviderSession,
  type IdentityProviderSessionOptions,
  XaaError,
  type XaaStage,
} from './idp-session.js';
export { LoopbackAuthorization, type LoopbackOptions } from './loopback.js';
export {
  type AuthorizationHandler,
  type AuthorizeOptions,
  type LoginOptions,
  OAuthProvider,
  type OAuthProviderOptions,
  type PreRegisteredClient,
} from './oauth.js';
export { BaseProvider, type ProviderOptions } from './provider.js';
export { redact, SecretSet } from './redact.js';
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
export {
  type WorkloadIdentityOptions,
  WorkloadIdentityProvider,
  type WorkloadTokenSource,
} from './workload-identity.js';
export {
  type AuthChallenges,
  type BearerChallenge,
  parseAuthChallenges,
} from './www-authenticate.js';

export { type BearerChallenge, bearerChallenge, insufficientScope } from './challenge.js';
export { AuthorizationServerUnavailableError } from './fetch-json.js';
export {
  AuthSecretError,
  endpointScopesOf,
  oauthConfigured,
  resourceServerOptionsFromConfig,
} from './from-config.js';
export {
  InvalidTokenError,
  ResourceServer,
  type ResourceServerOptions,
  resourceServerDefaults,
} from './resource-server.js';

export {
  AuthorizationServerUnavailableError,
  AuthSecretError,
  endpointScopesOf,
  InvalidTokenError,
  oauthConfigured,
  ResourceServer,
  type ResourceServerOptions,
  resourceServerDefaults,
  resourceServerOptionsFromConfig,
} from '../auth/index.js';
export type { EndpointSource } from '../compose/endpoint-router.js';
export {
  type GatewayConfigWatcher,
  type LoadGatewayConfigOptions,
  loadGatewayConfig,
  MAX_GATEWAY_CONFIG_BYTES,
  type WatchGatewayConfigOptions,
  watchGatewayConfig,
} from '../compose/watch.js';
export {
  boundHostNames,
  generateToken,
  type HttpListener,
  type HttpListenerOptions,
  httpListenerDefaults,
  isLoopbackBind,
  listenHttp,
  TokenRequiredError,
} from './http-listener.js';
export { StdioListener, type StdioListenerOptions } from './stdio-listener.js';

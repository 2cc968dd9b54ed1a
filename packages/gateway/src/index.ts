export {
  createMemorySessionStore,
  type MemorySessionStore,
  type SessionBusMessage,
  type SessionRecord,
  type SessionStore,
  type StoredEvent,
  type StreamOwner,
} from '@mcpkit/server';
export {
  type AccessCall,
  AccessControl,
  type AccessControlOptions,
  AccessErrorCode,
  type AccessTarget,
  AuditFile,
  type AuditFileOptions,
  type AuditHealth,
  type AuditRecord,
  type AuditSink,
  AuditStream,
  accessErrorStatus,
  type BucketStore,
  MemoryBucketStore,
  Policy,
  type StepUpContext,
  TokenExchangeError,
  UpstreamIdentity,
} from './access/index.js';
export { type BearerChallenge, bearerChallenge, insufficientScope } from './auth/challenge.js';
export {
  type AccessConfig,
  type AccessRule,
  type ArgumentTransform,
  type EndpointConfig,
  type GatewayAuthConfig,
  type GatewayConfig,
  GatewayConfigError,
  type GatewayConfigIssue,
  gatewayConfigJsonSchema,
  gatewayConfigSchema,
  type IdentityConfig,
  type ParseGatewayConfigOptions,
  parseGatewayConfig,
  type ServerComposition,
  type StoreConfig,
  type ToolComposition,
  type ToolPattern,
} from './compose/config.js';
export {
  createGatewayEndpoints,
  GatewayEndpoints,
  type GatewayEndpointsOptions,
} from './compose/endpoints.js';
export { type TransformedTool, transformTool } from './compose/transform.js';
export { type CompositionView, compositionView, everything, globMatcher } from './compose/view.js';
export { exposedName, type NamedPair, nameAll, toolFilter } from './exposed-names.js';
export { createGateway, Gateway, gatewayHandlers } from './gateway.js';
export type { GatewayHealth } from './gateway-health.js';
export type { GatewayOptions } from './gateway-options.js';
export { type IndexedTool, ToolIndex, type ToolSearchOptions } from './search/index.js';
export type { SoleClient } from './sole-client.js';

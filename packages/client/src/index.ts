export { type ClientHandlers, capabilitiesFor } from './client-handlers.js';
export {
  InvalidResultError,
  UnsupportedProtocolVersionError,
  type UrlElicitation,
  UrlElicitationRequiredError,
} from './errors.js';
export {
  type CallOptions,
  type CallToolParams,
  clientDefaults,
  McpClient,
  type McpClientOptions,
  type Subscription,
} from './mcp-client.js';
export { type EraRecord, sharedEraCache } from './modern.js';
export { OutputSchemaError } from './output-schema.js';

export { type ClientHandlers, capabilitiesFor } from './client-handlers.js';
export {
  InvalidResultError,
  LimitExceededError,
  RepeatedCursorError,
  UnsupportedByServerError,
  UnsupportedProtocolVersionError,
  type UrlElicitation,
  UrlElicitationRequiredError,
} from './errors.js';
export { McpClient } from './mcp-client.js';
export { type EraRecord, sharedEraCache } from './modern.js';
export {
  type CallOptions,
  type CallToolParams,
  checkClientOptions,
  clientDefaults,
  type McpClientOptions,
  type Subscription,
} from './options.js';
export { OutputSchemaError } from './output-schema.js';

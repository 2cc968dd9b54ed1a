export {
  decodeHeaderValue,
  encodeHeaderValue,
  invalidParamHeaders,
  standardRequestHeaders,
  toolParamHeaders,
} from '@mcpkit/protocol';
export {
  type ReconnectEvent,
  type ReconnectPolicy,
  reconnectDefaults,
  reconnectDelay,
} from './reconnect.js';
export {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './streamable-http-transport.js';

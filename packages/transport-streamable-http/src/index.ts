export {
  type ReconnectEvent,
  type ReconnectPolicy,
  reconnectDefaults,
  reconnectDelay,
} from './reconnect.js';
export {
  decodeHeaderValue,
  encodeHeaderValue,
  invalidParamHeaders,
  standardRequestHeaders,
  toolParamHeaders,
} from './request-headers.js';
export {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './streamable-http-transport.js';

export {
  checkStreamRetryPolicy,
  type ReconnectEvent,
  type StreamRetryPolicy,
  streamRetryDefaults,
  streamRetryDelay,
} from './reconnect.js';
export {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './streamable-http-transport.js';

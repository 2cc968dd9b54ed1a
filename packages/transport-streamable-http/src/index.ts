export {
  checkReconnectPolicy,
  type ReconnectEvent,
  type ReconnectPolicy,
  reconnectDefaults,
  reconnectDelay,
} from './reconnect.js';
export {
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from './streamable-http-transport.js';

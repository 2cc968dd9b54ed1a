export {
  WebSocketClosedError,
  WebSocketTransport,
  type WebSocketTransportOptions,
  websocketDefaults,
} from './websocket-transport.js';

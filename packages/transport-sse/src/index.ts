export {
  checkSseTransportOptions,
  type SseReconnectPolicy,
  SseTransport,
  type SseTransportOptions,
  sseReconnectDefaults,
} from './sse-transport.js';

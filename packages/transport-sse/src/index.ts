export { type HttpFallbackOptions, HttpFallbackTransport } from './fallback.js';
export {
  checkSseTransportOptions,
  type SseReconnectPolicy,
  SseTransport,
  type SseTransportOptions,
  sseReconnectDefaults,
} from './sse-transport.js';

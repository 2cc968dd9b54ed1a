export { CrossOriginError, MAX_SSE_REDIRECTS } from './same-origin.js';
export {
  checkSseTransportOptions,
  type SseReconnectPolicy,
  SseTransport,
  type SseTransportOptions,
  sseReconnectDefaults,
} from './sse-transport.js';

export {
  createInProcessPair,
  InProcessTransport,
  type InProcessTransportOptions,
} from './in-process-transport.js';

export {
  generateToken,
  type HttpListener,
  type HttpListenerOptions,
  isLoopbackBind,
  listenHttp,
  TokenRequiredError,
} from './http-listener.js';
export { StdioListener, type StdioListenerOptions } from './stdio-listener.js';

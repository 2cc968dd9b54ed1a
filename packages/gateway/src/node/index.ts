export {
  boundHostNames,
  generateToken,
  type HttpListener,
  type HttpListenerOptions,
  httpListenerDefaults,
  isLoopbackBind,
  listenHttp,
  TokenRequiredError,
} from './http-listener.js';
export { StdioListener, type StdioListenerOptions } from './stdio-listener.js';

export { type Cancellation, CancelScope } from './cancellation.js';
export {
  AbortedError,
  AlreadyStartedError,
  ConnectionClosedError,
  ErrorCode,
  HandlerError,
  HttpError,
  InvalidMessageError,
  JsonTooDeepError,
  McpkitError,
  type McpkitErrorOptions,
  MessageTooLargeError,
  NotConnectedError,
  ParseError,
  ResponseLostError,
  RpcError,
  RpcErrorCode,
  SessionExpiredError,
  TimeoutError,
  TransportError,
  UnauthorizedError,
} from './errors.js';
export type {
  HttpAuth,
  HttpAuthChallenge,
  HttpAuthRequest,
  HttpAuthResponse,
} from './http-auth.js';
export {
  globalInstrumentation,
  type InstrumentedRequest,
  type InstrumentedSession,
  type McpInstrumentation,
  type ObservedManager,
  type ObservedState,
  setGlobalInstrumentation,
} from './instrumentation.js';
export { assertJsonDepth, DEFAULT_MAX_JSON_DEPTH } from './json-depth.js';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  JsonRpcPeer,
  type JsonRpcPeerOptions,
} from './json-rpc-peer.js';
export {
  isErrorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccessResponse,
} from './messages.js';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  NdjsonFramer,
  type NdjsonFramerOptions,
  serializeNdjson,
} from './ndjson-framer.js';
export { MAX_TIMER_MS } from './option-checks.js';
export {
  CANCELLED_NOTIFICATION,
  type NotificationHandler,
  PROGRESS_NOTIFICATION,
  type Progress,
  type RequestContext,
  type RequestHandler,
  type RequestOptions,
} from './request-types.js';
export { sleep } from './sleep.js';
export {
  type StreamRetryPolicy,
  streamRetryDelay,
} from './stream-retry-policy.js';
export {
  type AuthInfo,
  type HttpPeer,
  type MessageExtra,
  SENT,
  type Transport,
  type TransportCapabilities,
  type TransportSendOptions,
} from './transport.js';
export { type ValidationResult, validateMessage } from './validate.js';

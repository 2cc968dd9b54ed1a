export {
  type BodyChunks,
  MAX_ERROR_BODY_BYTES,
  readBodyExcerpt,
  readBodyLimited,
  readSseStream,
  type SseStreamHandlers,
} from './bounded-body.js';
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
export {
  authorizationOf,
  type HttpAuth,
  type HttpAuthChallenge,
  type HttpAuthRequest,
  type HttpAuthResponse,
  noteAuthResponse,
} from './http-auth.js';
export {
  globalInstrumentation,
  type InstrumentedRequest,
  type McpInstrumentation,
  setGlobalInstrumentation,
} from './instrumentation.js';
export { isRecord } from './is-record.js';
export { JoinedWriter, type LineSink } from './joined-writer.js';
export {
  assertJsonDepth,
  checkJsonTextDepth,
  checkMaxJsonDepth,
  DEFAULT_MAX_JSON_DEPTH,
  jsonTextDepth,
  jsonValueDepth,
} from './json-depth.js';
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
export {
  type CountOptionRules,
  checkCount,
  checkFinite,
  checkMaxMessageBytes,
  checkTimerMs,
  MAX_TIMER_MS,
  type TimerOptionRules,
} from './option-checks.js';
export { DEFAULT_CLOSE_FLUSH_MS, PendingSends } from './pending-sends.js';
export {
  checkReconnectPolicy,
  type ReconnectPolicy,
  reconnectDelay,
} from './reconnect-policy.js';
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
  dispatchJsonText,
  type SseEvent,
  SseParser,
  type SseParserOptions,
} from './sse-parser.js';
export {
  type MessageExtra,
  SENT,
  type Transport,
  type TransportCapabilities,
  type TransportSendOptions,
} from './transport.js';
export { dispatchParsed, type ValidationResult, validateMessage } from './validate.js';

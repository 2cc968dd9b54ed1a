// NOT PUBLIC API. `@mcpkit/jsonrpc/internal` holds the helpers that mcpkit's own packages
// share (bounded readers, option checks, framing pieces). Anything here may change or go in
// any release, patch releases included, without a changeset entry for your code: import
// from `@mcpkit/jsonrpc` instead. It is not covered by the API report either.
export {
  type BodyChunks,
  MAX_ERROR_BODY_BYTES,
  readBodyExcerpt,
  readBodyLimited,
  readSseStream,
  type SseStreamHandlers,
} from '../bounded-body.js';
export { authorizationOf, noteAuthResponse } from '../http-auth.js';
export { isRecord } from '../is-record.js';
export { JoinedWriter, type JoinWrites, type LineSink } from '../joined-writer.js';
export {
  checkJsonTextDepth,
  checkMaxJsonDepth,
  jsonTextDepth,
  jsonValueDepth,
} from '../json-depth.js';
export {
  type CountOptionRules,
  checkCount,
  checkFinite,
  checkMaxMessageBytes,
  checkTimerMs,
  type TimerOptionRules,
} from '../option-checks.js';
export { DEFAULT_CLOSE_FLUSH_MS, PendingSends } from '../pending-sends.js';
export { SlotMap } from '../slot-map.js';
export {
  dispatchJsonText,
  type SseEvent,
  SseParser,
  type SseParserOptions,
} from '../sse-parser.js';
export { checkStreamRetryPolicy } from '../stream-retry-policy.js';
export { dispatchParsed } from '../validate.js';

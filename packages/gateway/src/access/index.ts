export {
  type AccessCall,
  AccessControl,
  type AccessControlOptions,
  AccessErrorCode,
  accessErrorStatus,
  type StepUpContext,
} from './access-control.js';
export {
  AuditFile,
  type AuditFileOptions,
  type AuditHealth,
  type AuditRecord,
  type AuditSink,
  AuditStream,
} from './audit.js';
export { TokenExchangeError, UpstreamIdentity } from './identity.js';
export { type AccessTarget, Policy } from './policy.js';
export { type BucketStore, MemoryBucketStore } from './rate-limit.js';

import { type AuthInfo, RpcError } from '@mcpkit/jsonrpc';
import type { HandlerContext } from '@mcpkit/server';
import { insufficientScope } from '../auth/challenge.js';
import type { AccessConfig } from '../compose/config.js';
import type { AuditHealth, AuditRecord, AuditSink } from './audit.js';
import { auditHeadOf, auditLine, auditTail, auditTime, auditWho } from './audit-line.js';
import { UpstreamIdentity } from './identity.js';
import { type AccessTarget, Policy } from './policy.js';
import { type BucketStore, MemoryBucketStore } from './rate-limit.js';

/** The JSON-RPC error codes of a refused call (server-defined range). */
export const AccessErrorCode = {
  /** The policy does not let this caller call this; `data.scopes` would allow it. */
  Forbidden: -32040,
  /** The caller's rate limit is spent; `data.retryAfterSeconds` says when to try again. */
  RateLimited: -32041,
} as const;

export interface AccessControlOptions {
  /** The gateway config's `access` section. */
  config?: AccessConfig | undefined;
  /** Where audit lines go (none: no audit log). */
  audit?: AuditSink | undefined;
  /** Where the rate limits' buckets live; in this process's memory by default. */
  buckets?: BucketStore;
}

/** What a call is, for the audit log. */
export interface AccessCall extends AccessTarget {
  method: string;
  /** The request's params as the client sent them (sizes; arguments when asked). */
  params: Record<string, unknown>;
}

/** The size of a value as JSON, in bytes (the request's params, the answer). */
const json = (value: unknown) => {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
};

/**
 * An audit line's opening with the time as ISO text (`auditTime`), made once per millisecond
 * (calls that end together share it).
 */
let timeAt = Number.NaN;
let timeText = '';
function timeNow(): string {
  const now = Date.now();
  if (now !== timeAt) {
    timeAt = now;
    timeText = auditTime(new Date(now).toISOString());
  }
  return timeText;
}

/** The last `auditWho` text of a caller, with what it was made of. */
interface WhoMemo {
  session: string | undefined;
  endpoint: string;
  server: string;
  method: string;
  tool: string;
  text: string;
}
/** Per caller (`AuthInfo`, one per verified token): its last call's `auditWho`, reused while it calls the same target. */
const whoMemos = new WeakMap<AuthInfo, WhoMemo>();
function whoText(
  auth: AuthInfo | undefined,
  session: string | undefined,
  call: AccessCall,
): string {
  const memo = auth === undefined ? undefined : whoMemos.get(auth);
  if (
    memo !== undefined &&
    memo.session === session &&
    memo.endpoint === call.endpoint &&
    memo.server === call.server &&
    memo.method === call.method &&
    memo.tool === call.name
  )
    return memo.text;
  const text = auditWho({
    subject: auth?.subject,
    clientId: auth?.clientId,
    session,
    endpoint: call.endpoint,
    server: call.server,
    method: call.method,
    tool: call.name,
  });
  if (auth !== undefined)
    whoMemos.set(auth, {
      session,
      endpoint: call.endpoint,
      server: call.server,
      method: call.method,
      tool: call.name,
      text,
    });
  return text;
}

/**
 * Who the rate limit counts a caller as: its subject, else its client, else its kind. The
 * static token's subject has a bucket of its own, apart from a token's `sub` of the same name.
 */
function bucketKeyOf(auth: AuthInfo | undefined): string {
  if (auth?.subject !== undefined)
    return `${auth.kind === 'static-token' ? 't' : 's'}:${auth.subject}`;
  if (auth?.clientId !== undefined) return `c:${auth.clientId}`;
  return `k:${auth?.kind ?? 'anonymous'}`;
}

/**
 * `bucketKeyOf`, kept per `AuthInfo` (one frozen object per verified token): the same key
 * string each call, whose hash V8 keeps, instead of a new string hashed by the bucket map.
 */
const bucketKeys = new WeakMap<AuthInfo, string>();
function bucketKey(auth: AuthInfo | undefined): string {
  if (auth === undefined) return bucketKeyOf(auth);
  let key = bucketKeys.get(auth);
  if (key === undefined) {
    key = bucketKeyOf(auth);
    bucketKeys.set(auth, key);
  }
  return key;
}

/** The access controls with audit lines not yet written (`exit` writes them). */
const waiting = new Set<AccessControl>();
let exitHooked = false;
function writeAtExit(access: AccessControl): void {
  waiting.add(access);
  if (exitHooked) return;
  exitHooked = true;
  globalThis.process?.once?.('exit', () => {
    for (const a of waiting) a.flushAudit();
  });
}

/**
 * Per-client access to a gateway (a gateway config's `access`): which tools, prompts and
 * resources each caller lists and calls, a rate limit per subject, one audit line per call,
 * and the caller's identity given to the backends that ask for it. One instance serves every
 * endpoint of a gateway; `configure` swaps the rules (a reloaded config), `failClosed`
 * refuses everything until the next good config.
 */
export class AccessControl {
  private policy: Policy;
  private rate: { rate: number; burst: number } | undefined;
  private identity: UpstreamIdentity;
  private auditArguments: boolean;
  private auditRequired: boolean;
  private failed: string | undefined;
  private readonly audit: AuditSink | undefined;
  private readonly buckets: BucketStore;
  private readonly watchers = new Set<() => () => void>();
  /** The audit lines of the calls that finished in this microtask wave, not yet written. */
  private auditLines: string[] = [];
  private auditScheduled = false;

  constructor(options: AccessControlOptions = {}) {
    this.audit = options.audit;
    this.buckets = options.buckets ?? new MemoryBucketStore();
    this.policy = new Policy(options.config);
    this.rate = options.config?.rateLimit;
    this.identity = new UpstreamIdentity(options.config?.identity ?? {});
    this.auditArguments = options.config?.audit?.arguments === true;
    this.auditRequired = options.config?.audit?.required === true;
  }

  /**
   * A new `access` section (a reloaded config): in force for the next list and call. The
   * `watchChanges` watchers hear of it (the gateways tell each session whose lists changed).
   */
  configure(config: AccessConfig | undefined): void {
    this.changing(() => {
      this.policy = new Policy(config);
      this.rate = config?.rateLimit;
      this.identity = new UpstreamIdentity(config?.identity ?? {});
      this.auditArguments = config?.audit?.arguments === true;
      this.auditRequired = config?.audit?.required === true;
      this.failed = undefined;
    });
  }

  /** The policy could not be read: nothing is listed and every call is refused until `configure`. */
  failClosed(reason: string): void {
    this.changing(() => {
      this.failed = reason;
    });
  }

  /**
   * Watches changes of what callers may see: `watcher` is called before each `configure` or
   * `failClosed`, and the function it returns after it. Returns the unwatch.
   */
  watchChanges(watcher: () => () => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private changing(change: () => void): void {
    const after = [...this.watchers].map((watcher) => watcher());
    change();
    for (const done of after) done();
  }

  /**
   * For `/healthz`: whether calls are served, or refused (the policy is unreadable, or the
   * audit log required and failing); and the audit log's own state when it is failing.
   */
  health(): { state: 'ok' | 'refusing'; reason?: string; audit?: AuditHealth } {
    const audit = this.audit?.health?.();
    const failing = audit?.state === 'failing' ? { audit } : {};
    if (this.failed !== undefined) return { state: 'refusing', reason: this.failed, ...failing };
    if (this.auditUnwritable(audit))
      return {
        state: 'refusing',
        reason: `the audit log cannot be written (${audit.code})`,
        ...failing,
      };
    return { state: 'ok', ...failing };
  }

  /**
   * Whether calls are refused for the audit log: required, and its writes failing. The
   * sink's health is asked only when the log is required (not on every call).
   */
  private auditUnwritable(
    audit?: AuditHealth,
  ): audit is Extract<AuditHealth, { state: 'failing' }> {
    if (!this.auditRequired) return false;
    const health = audit ?? this.audit?.health?.();
    return health?.state === 'failing' && health.during === 'write';
  }

  /** Whether the caller sees the target in its lists. */
  visible(auth: AuthInfo | undefined, target: AccessTarget): boolean {
    return this.failed === undefined && this.policy.allows(auth, target);
  }

  /** Reopens the audit file (SIGHUP, after log rotation). */
  reopenAudit(): void {
    this.flushAudit();
    this.audit?.reopen();
  }

  close(): void {
    this.flushAudit();
    this.audit?.close();
  }

  /** Writes the audit lines not yet written now, in one write. */
  readonly flushAudit = (): void => {
    this.auditScheduled = false;
    waiting.delete(this);
    const lines = this.auditLines;
    if (lines.length === 0) return;
    this.auditLines = [];
    const text = lines.length === 1 ? lines[0]! : lines.join('');
    try {
      this.audit?.write(text);
    } catch {
      // A full disk must not fail a call; the sink's owner hears of it elsewhere.
    }
  };

  /**
   * One forwarded call: refused when the policy does not allow it or the caller's bucket is
   * empty (an `RpcError` the client shows: `AccessErrorCode`), else run with the headers
   * its backend gets for this caller; audited either way.
   */
  async run<T>(
    call: AccessCall,
    ctx: HandlerContext,
    forward: (headers: Record<string, string> | undefined) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const auth = ctx.authInfo;
    let outcome: AuditRecord['outcome'] = 'ok';
    let reason: string | undefined;
    let answer: unknown;
    try {
      if (this.failed !== undefined) {
        reason = 'policy-unreadable';
        throw new RpcError(
          AccessErrorCode.Forbidden,
          'mcpkit gateway: the access policy could not be read; every call is refused until it can',
          { reason },
        );
      }
      if (this.auditUnwritable()) {
        reason = 'audit-failing';
        throw new RpcError(
          AccessErrorCode.Forbidden,
          'mcpkit gateway: the audit log cannot be written, and this gateway refuses calls it cannot audit',
          { reason },
        );
      }
      if (!this.policy.allows(auth, call)) {
        reason = 'policy';
        const scopes = this.policy.scopesAllowing(auth, call);
        throw new RpcError(
          AccessErrorCode.Forbidden,
          `mcpkit gateway: this client may not call ${call.kind} "${call.name}" of server "${call.server}"${scopes.length > 0 ? ` (the scope ${scopes.map((s) => `"${s}"`).join(' or ')} would allow it)` : ''}`,
          { reason, server: call.server, [call.kind]: call.name, scopes },
        );
      }
      if (this.rate) {
        const taken = this.buckets.take(
          bucketKey(auth),
          this.rate.rate,
          this.rate.burst,
          Date.now(),
        );
        // The memory store answers at once: no extra microtask turn for it.
        const waitMs = typeof taken === 'number' ? taken : await taken;
        if (waitMs > 0) {
          reason = 'rate-limit';
          const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
          throw new RpcError(
            AccessErrorCode.RateLimited,
            `mcpkit gateway: too many calls; try again in ${retryAfterSeconds} s`,
            { reason, retryAfterSeconds, rate: this.rate.rate, burst: this.rate.burst },
          );
        }
      }
      const headers = this.identity.has(call.server)
        ? await this.identity.headers(call.server, auth)
        : undefined;
      answer = await forward(headers);
      if ((answer as { isError?: unknown } | undefined)?.isError === true) outcome = 'tool-error';
      return answer as T;
    } catch (error) {
      answer = RpcError.isInstance(error)
        ? { error: { code: error.rpcCode, message: error.message, data: error.data } }
        : { error: { message: (error as Error)?.message } };
      outcome =
        reason !== undefined
          ? 'refused'
          : call.kind === 'tool' && !RpcError.isInstance(error)
            ? 'tool-error'
            : 'protocol-error';
      throw error;
    } finally {
      if (
        this.audit &&
        (answer as { resultType?: unknown } | undefined)?.resultType !== 'input_required'
      )
        this.write(call, ctx, auth, outcome, reason, started, answer);
    }
  }

  /**
   * The call's audit line, built as text (`auditHead`), written with the lines of the calls
   * that finish with it in one write, in a microtask queued by the first: before any of
   * their answers is sent, so that a line is in the file when its call is answered. `close`,
   * `reopenAudit` and the process's `exit` write what waits.
   */
  private write(
    call: AccessCall,
    ctx: HandlerContext,
    auth: AuthInfo | undefined,
    outcome: AuditRecord['outcome'],
    reason: string | undefined,
    started: number,
    answer: unknown,
  ): void {
    this.auditLines.push(
      auditLine(
        auditHeadOf(timeNow(), whoText(auth, ctx.sessionId, call), {
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          outcome,
          reason,
          requestBytes: json(call.params),
        }),
        json(answer),
        auditTail(this.auditArguments ? call.params.arguments : undefined),
      ),
    );
    if (this.auditScheduled) return;
    this.auditScheduled = true;
    writeAtExit(this);
    queueMicrotask(this.flushAudit);
  }
}

/** What a 403 step-up challenge adds for the request it answers (`accessErrorStatus`). */
export interface StepUpContext {
  /** The scopes the caller's token has: asked for again, so that a step-up loses none. */
  grantedScopes?: readonly string[];
  /** The endpoint's Protected Resource Metadata URL (RFC 9728), as in the 401 challenges. */
  resourceMetadata?: string;
}

const scopeToken = (s: unknown): s is string =>
  typeof s === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s);

/**
 * `StreamableHttpOptions.errorStatus` for a gateway with access control (given the request's
 * `StepUpContext`): a call refused by policy, answered alone on its POST, goes out as HTTP
 * 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…",
 * resource_metadata="…"` when a scope would allow it (the MCP authorization spec's step-up:
 * the scopes the token has and those that would allow the call); a rate-limited one as 429
 * with `Retry-After`. The body is the JSON-RPC error either way; inside a batch or an SSE
 * stream only that error is sent.
 */
export function accessErrorStatus(
  error: {
    code: number;
    data?: unknown;
  },
  context: StepUpContext = {},
): { status: number; headers?: Record<string, string> } | undefined {
  const data = error.data as { scopes?: unknown; retryAfterSeconds?: unknown } | undefined;
  if (error.code === AccessErrorCode.RateLimited && typeof data?.retryAfterSeconds === 'number')
    return { status: 429, headers: { 'retry-after': String(data.retryAfterSeconds) } };
  if (error.code === AccessErrorCode.Forbidden && Array.isArray(data?.scopes)) {
    const allowing = data.scopes.filter(scopeToken);
    if (allowing.length > 0)
      return {
        status: 403,
        headers: {
          'www-authenticate': insufficientScope(
            [...new Set([...(context.grantedScopes ?? []).filter(scopeToken), ...allowing])],
            {
              description: 'this client may not call it',
              ...(context.resourceMetadata !== undefined
                ? { resourceMetadata: context.resourceMetadata }
                : {}),
            },
          ),
        },
      };
  }
  return undefined;
}

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  DEFAULT_MAX_JSON_DEPTH,
  type JsonRpcMessage,
  type JsonRpcRequest,
  RpcErrorCode,
  validateMessage,
} from '@mcpkit/jsonrpc';
import { checkJsonTextDepth } from '@mcpkit/jsonrpc/internal';
import { isLegacyVersion, MetaKey } from '@mcpkit/protocol';
import { McpServerError, ServerErrorCode } from '../errors.js';
import type { McpServer } from '../mcp-server.js';
import type { ServerSession } from '../server-session.js';
import { EventBufferPool, SessionEventBuffer } from './event-buffer.js';
import { Holdings, type Refusal, refuseAfterDrain, remoteAddress } from './holdings.js';
import { LOOPBACK_HOSTS, refuseHostOrOrigin } from './host-check.js';
import { LegacySessionTransport, type SharedSessionOptions } from './legacy-session-transport.js';
import { acceptsMediaType, mediaTypeOf } from './media-type.js';
import { ModernExchangeTransport, statusOfError } from './modern-exchange-transport.js';
import { checkModernHeaders } from './modern-headers.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { sendJsonError } from './sse.js';
import { traceHeadersOf } from './trace-headers.js';

export interface StreamableHttpOptions {
  /** Host names (no port) the `Host` header may carry: DNS-rebinding protection. */
  allowedHosts?: readonly string[];
  /**
   * Origins a browser may call from besides the server's own (the scheme, host and port of
   * the request's target, always allowed); none by default.
   */
  allowedOrigins?: readonly string[];
  /** Largest request body, in bytes; bigger ones get 413. */
  maxBodyBytes?: number;
  /** 2025 sessions open at once; more `initialize` requests get 503. */
  maxSessions?: number;
  /** 2025 sessions one client (see `clientKey`) may hold at once; more get 429. */
  maxSessionsPerClient?: number;
  /** SSE events kept per session for `Last-Event-ID` resumption. */
  maxBufferedEvents?: number;
  /** Bytes of SSE events kept per session for resumption (oldest evicted first). */
  maxBufferedBytesPerSession?: number;
  /** Bytes of SSE events kept across every session (oldest evicted first, any session's). */
  maxBufferedBytes?: number;
  /** HTTP responses open at once on one 2025 session (its GET stream and POST streams); more get 429. */
  maxStreamsPerSession?: number;
  /** HTTP responses open at once on this handler, every era; more requests get 503. */
  maxStreams?: number;
  /** 2026-07-28 `subscriptions/listen` streams open at once; more get 503. */
  maxListenStreams?: number;
  /** `subscriptions/listen` streams one client may hold at once; more get 429. */
  maxListenStreamsPerClient?: number;
  /** Request bytes the open `subscriptions/listen` streams hold (their bodies, capabilities and all); over it, 503. */
  maxListenBytes?: number;
  /** The same, for one client's listen streams; over it, 429. */
  maxListenBytesPerClient?: number;
  /**
   * A 2025 GET stream and a 2026 `subscriptions/listen` stream end after this long (the GET
   * stream's connection is closed, a listen gets its graceful result); clients reconnect.
   * 0 (the default): no age limit (an open GET still does not keep an idle session).
   */
  maxStreamAgeMs?: number;
  /**
   * Who a request comes from, for the per-client caps: the remote address by default. A
   * listener that authenticates callers can return their identity instead.
   */
  clientKey?: (req: IncomingMessage) => string;
  /** The SSE `retry` hint sent with priming events, in ms. */
  retryMs?: number;
  /** How 2025-era requests are answered: `auto` picks JSON when nothing else is sent first. */
  responseMode?: 'auto' | 'sse' | 'json';
  /**
   * A 2025 session without a POST for this long is closed (its id then gets 404), even with
   * its GET stream open; a request still being answered keeps it.
   */
  sessionIdleTimeoutMs?: number;
  /** A 2025 session opened (after its `initialize` arrived). */
  onsessionopen?: (sessionId: string) => void;
  /** A 2025 session ended: DELETE, idle expiry, a failed `initialize`, or `close()`. */
  onsessionclose?: (sessionId: string) => void;
  /** Session ids; random UUIDs by default. Must be visible ASCII. */
  generateSessionId?: () => string;
  /**
   * The verified identity of a request's caller (a listener that checks tokens stashes what
   * it verified and returns it here); handlers read it as `ctx.authInfo`. Asked once per POST.
   */
  authInfo?: (req: IncomingMessage) => AuthInfo | undefined;
  /**
   * A JSON-RPC error answered alone as JSON (the POST's one request, nothing streamed
   * first): the HTTP status and headers to send it with — a gateway's 403 with
   * `WWW-Authenticate: Bearer error="insufficient_scope"`, its 429 with `Retry-After`.
   * `undefined`: the binding's own status (200 in 2025 sessions).
   */
  errorStatus?: ErrorStatus;
  /**
   * Shares 2025 sessions with the other replicas of this endpoint (any replica then serves
   * any session: its record, POST stream events for `Last-Event-ID`, server requests and
   * notifications for a GET stream held elsewhere). 2026-07-28 requests need nothing shared.
   */
  sessionStore?: SessionStore;
  /** This replica's id in the store (random by default); unique per process. */
  replicaId?: string;
  /**
   * How long a replica's heartbeat lasts in the store, in ms: a stream resumed on another
   * replica is failed this long (at most about twice) after its replica stops.
   */
  replicaHeartbeatMs?: number;
}

/** See `StreamableHttpOptions.errorStatus`; `req` is the POST the error answers. */
export type ErrorStatus = (
  error: {
    code: number;
    message: string;
    data?: unknown;
  },
  req?: IncomingMessage,
) => { status: number; headers?: Record<string, string> } | undefined;

/** The bounds on what clients can make a handler hold (every one has a default). */
export type StreamableHttpLimits = Pick<
  StreamableHttpOptions,
  | 'maxSessions'
  | 'maxSessionsPerClient'
  | 'maxBufferedEvents'
  | 'maxBufferedBytesPerSession'
  | 'maxBufferedBytes'
  | 'maxStreamsPerSession'
  | 'maxStreams'
  | 'maxListenStreams'
  | 'maxListenStreamsPerClient'
  | 'maxListenBytes'
  | 'maxListenBytesPerClient'
  | 'maxStreamAgeMs'
  | 'sessionIdleTimeoutMs'
  | 'clientKey'
  | 'responseMode'
  | 'sessionStore'
  | 'replicaId'
  | 'replicaHeartbeatMs'
>;

export const streamableHttpDefaults = {
  allowedHosts: LOOPBACK_HOSTS,
  maxBodyBytes: 4 * 1024 * 1024,
  maxSessions: 1000,
  maxSessionsPerClient: 100,
  maxBufferedEvents: 256,
  maxBufferedBytesPerSession: 8 * 1024 * 1024,
  maxBufferedBytes: 64 * 1024 * 1024,
  maxStreamsPerSession: 100,
  maxStreams: 4096,
  maxListenStreams: 256,
  maxListenStreamsPerClient: 32,
  maxListenBytes: 64 * 1024 * 1024,
  maxListenBytesPerClient: 8 * 1024 * 1024,
  // Off: mcpkit's own client gives up a standalone stream after 5 empty reconnections and
  // does not reopen its listen stream on a graceful end, so an age limit would cut it off.
  maxStreamAgeMs: 0,
  retryMs: 1000,
  responseMode: 'auto',
  sessionIdleTimeoutMs: 30 * 60_000,
  replicaHeartbeatMs: 5000,
} as const;

/** What a handler holds now: what its bounds are measured against. */
export interface StreamableHttpStats {
  /** Open 2025-era sessions. */
  sessions: number;
  /** Open HTTP responses (streams and requests being answered), every era. */
  streams: number;
  /** Open 2026-07-28 `subscriptions/listen` streams. */
  listenStreams: number;
  /** Request bytes those listen streams hold. */
  listenBytes: number;
  /** SSE events kept for resumption, across sessions. */
  bufferedEvents: number;
  /** Their bytes (UTF-8). */
  bufferedBytes: number;
}

/** A `node:http` request listener that serves an `McpServer`, plus what it holds open. */
export interface StreamableHttpHandler {
  /**
   * Takes a request in; the promise settles once it is taken in (a POST's answer comes
   * later, on `res`), and never rejects: a request that fails is answered 500 or 503.
   */
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Open 2025-era sessions. */
  readonly sessionCount: number;
  /** What is held now (sessions, streams, buffered bytes). */
  stats(): StreamableHttpStats;
  /** Ends every session and open stream. */
  close(): Promise<void>;
}

const SESSION_NOT_FOUND = -32001;

class BodyTooLarge extends Error {}

/** The session store could not be read: the request is answered 503 (another try may work). */
class StoreUnavailable extends Error {}

/**
 * Reads a request body of at most `limit` bytes (`declared`: its `Content-Length`, NaN when
 * absent) and hands it (or why it could not be read) to `done`, once. A callback, not a
 * promise: the body of every POST goes through here.
 */
function readBody(
  req: IncomingMessage,
  declared: number,
  limit: number,
  done: (body: Buffer | undefined, error?: unknown) => void,
): void {
  if (Number.isFinite(declared) && declared > limit) {
    done(undefined, new BodyTooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      req.removeAllListeners('data');
      req.resume();
      if (!settled) {
        settled = true;
        done(undefined, new BodyTooLarge());
      }
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (settled) return;
    settled = true;
    // A body that came in one chunk (the usual case) is used as it is, not copied.
    done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
  req.on('error', (error) => {
    if (settled) return;
    settled = true;
    done(undefined, error);
  });
}

/** What the handler returns for a request it took in without waiting for anything. */
const TAKEN: Promise<void> = Promise.resolve();

/** A cap's refusal as an HTTP answer, with `Retry-After`. */
function refuse(
  res: ServerResponse,
  refusal: Refusal,
  id: string | number | null,
  retryAfter: string,
): void {
  sendJsonError(res, refusal.status, -32000, refusal.message, id, { 'retry-after': retryAfter });
}

function hasModernMeta(message: JsonRpcMessage): boolean {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return typeof meta === 'object' && meta !== null && MetaKey.ProtocolVersion in meta;
}

/**
 * Serves `server` over Streamable HTTP on any `node:http` server: the 2025 revisions with
 * `Mcp-Session-Id` sessions (JSON or SSE answers, the GET stream, resumption, DELETE), and
 * the stateless 2026-07-28 binding (header checks, `subscriptions/listen`, cancellation
 * by closing the stream), told apart per request.
 */
export function createStreamableHttpHandler(
  server: McpServer,
  options: StreamableHttpOptions = {},
): StreamableHttpHandler {
  const allowedHosts = (options.allowedHosts ?? streamableHttpDefaults.allowedHosts).map((h) =>
    h.toLowerCase(),
  );
  const maxBodyBytes = options.maxBodyBytes ?? streamableHttpDefaults.maxBodyBytes;
  const maxSessions = options.maxSessions ?? streamableHttpDefaults.maxSessions;
  const generateSessionId = options.generateSessionId ?? randomUUID;
  const d = streamableHttpDefaults;
  const maxStreamAgeMs = options.maxStreamAgeMs ?? d.maxStreamAgeMs;
  const clientKey = options.clientKey ?? remoteAddress;
  const sessions = new Map<string, LegacySessionTransport>();
  const exchanges = new Set<ServerSession>();
  const pool = new EventBufferPool(options.maxBufferedBytes ?? d.maxBufferedBytes);
  const holdings = new Holdings({
    maxSessionsPerClient: options.maxSessionsPerClient ?? d.maxSessionsPerClient,
    maxStreamsPerSession: options.maxStreamsPerSession ?? d.maxStreamsPerSession,
    maxStreams: options.maxStreams ?? d.maxStreams,
    maxListenStreams: options.maxListenStreams ?? d.maxListenStreams,
    maxListenStreamsPerClient: options.maxListenStreamsPerClient ?? d.maxListenStreamsPerClient,
    maxListenBytes: options.maxListenBytes ?? d.maxListenBytes,
    maxListenBytesPerClient: options.maxListenBytesPerClient ?? d.maxListenBytesPerClient,
  });

  const store = options.sessionStore;
  const idleTimeoutMs = options.sessionIdleTimeoutMs ?? d.sessionIdleTimeoutMs;
  const heartbeatMs = options.replicaHeartbeatMs ?? d.replicaHeartbeatMs;
  const replica = options.replicaId ?? randomUUID();
  const reportStoreError = (error: Error) => server.reportError(error);
  const shared: SharedSessionOptions | undefined = store && {
    store,
    replica,
    ttlMs: idleTimeoutMs,
    ownerCheckMs: Math.max(50, Math.floor(heartbeatMs / 2)),
    onerror: reportStoreError,
  };
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let alive: Promise<void> | undefined;
  if (store) {
    const beat = () => store.heartbeat(replica, heartbeatMs);
    alive = beat().catch(reportStoreError);
    heartbeat = setInterval(
      () => void beat().catch(reportStoreError),
      Math.max(20, Math.floor(heartbeatMs / 3)),
    );
    heartbeat.unref();
  }
  /** Sessions being taken up from the store (two requests at once take it up once). */
  const hydrating = new Map<string, Promise<LegacySessionTransport | undefined>>();
  const unsubscribes = new Map<string, () => Promise<void>>();
  const lastTouch = new Map<string, number>();

  /**
   * This replica's open copy of a session, found without waiting: undefined when it is not
   * open here or is still being taken up from the store (`findSession` then waits for it).
   */
  function sessionHere(sessionId: string): LegacySessionTransport | undefined {
    // A copy still being taken up is in `sessions` before it is restored and connected: a
    // request that used it then would open a stream with no priming event and its message
    // would reach no one (ci10's unanswered call). It waits for the take-up instead.
    if (hydrating.size > 0 && hydrating.has(sessionId)) return undefined;
    const local = sessions.get(sessionId);
    if (local === undefined || local.isClosed) return undefined;
    if (store) {
      // The store keeps a session as long as any replica sees it used.
      const now = Date.now();
      if (now - (lastTouch.get(sessionId) ?? 0) > idleTimeoutMs / 4) {
        lastTouch.set(sessionId, now);
        store.touchSession(sessionId, idleTimeoutMs).catch(reportStoreError);
      }
    }
    return local;
  }

  /** This replica's copy of a session: open here, or taken up from the store. */
  function findSession(
    req: IncomingMessage,
    sessionId: string,
  ): Promise<LegacySessionTransport | undefined> {
    const taking = hydrating.get(sessionId);
    if (taking) return taking;
    const local = sessionHere(sessionId);
    if (local !== undefined || !store) return Promise.resolve(local);
    const pending = hydrate(req, sessionId)
      .catch((error: unknown) => {
        reportStoreError(error instanceof Error ? error : new Error(String(error)));
        throw new StoreUnavailable();
      })
      .finally(() => hydrating.delete(sessionId));
    hydrating.set(sessionId, pending);
    return pending;
  }

  async function hydrate(
    req: IncomingMessage,
    sessionId: string,
  ): Promise<LegacySessionTransport | undefined> {
    const record = await store!.loadSession(sessionId);
    if (!record) return undefined;
    lastTouch.set(sessionId, Date.now());
    const { transport, session } = await startSession(clientKey(req), sessionId);
    await session.restore(record);
    return transport;
  }

  async function startSession(key: string, sessionId: string) {
    const transport = new LegacySessionTransport({
      sessionId,
      events: new SessionEventBuffer(
        pool,
        options.maxBufferedBytesPerSession ?? d.maxBufferedBytesPerSession,
        options.maxBufferedEvents ?? d.maxBufferedEvents,
      ),
      retryMs: options.retryMs ?? d.retryMs,
      responseMode: options.responseMode ?? d.responseMode,
      ...(options.errorStatus ? { errorStatus: options.errorStatus } : {}),
      idleTimeoutMs,
      maxStreamAgeMs,
      ...(shared ? { shared } : {}),
    });
    sessions.set(sessionId, transport);
    const release = holdings.holdSession(key);
    if (store) {
      try {
        unsubscribes.set(
          sessionId,
          await store.subscribe(sessionId, (message) => transport.onbus(message)),
        );
      } catch (error) {
        sessions.delete(sessionId);
        release();
        throw error;
      }
    }
    const session = await server.connect(transport, {
      sessionId,
      era: 'legacy',
      label: `HTTP session ${sessionId}`,
      networkTransport: 'tcp',
      closeSseStream: (requestId) => transport.closeSseStream(requestId),
      ...(store
        ? {
            // Saved for replicas that take the session up later, told to those that hold it.
            persistState: (record: SessionRecord) =>
              Promise.all([
                store.saveSession(sessionId, record, idleTimeoutMs),
                store.publish(sessionId, { kind: 'record', replica, record }),
              ]).then(() => undefined),
          }
        : {}),
    });
    session.onnegotiated = (version) => {
      transport.protocolVersion = version;
    };
    if (store) {
      // A session's resource subscriptions are followed on one replica: the one holding its
      // GET stream (else the one that took each), so that an update reaches the client once.
      const follow = () =>
        store
          .publish(sessionId, { kind: 'follow', replica })
          .catch((e: unknown) => reportStoreError(e instanceof Error ? e : new Error(String(e))));
      transport.onstandalone = () => {
        void session.followAll().then(follow);
      };
      transport.onshared = (message) => {
        if (message.kind === 'follow') session.unfollowAll();
        else
          void session.syncRecord(message.record, transport.holdsStandalone).then((took) => {
            if (took) void follow();
          });
      };
    }
    const previous = session.onclose;
    session.onclose = () => {
      sessions.delete(sessionId);
      lastTouch.delete(sessionId);
      const unsubscribe = unsubscribes.get(sessionId);
      unsubscribes.delete(sessionId);
      unsubscribe?.().catch(reportStoreError);
      release();
      previous?.();
      options.onsessionclose?.(sessionId);
    };
    options.onsessionopen?.(sessionId);
    return { transport, session };
  }

  /**
   * A POST: checked, its body read (a callback), then `received`. Nothing here waits on a
   * promise: a request of a session open here is handed to it in the body's `end` event.
   * `headers` is `req.headers`, read once by the handler.
   */
  function post(req: IncomingMessage, res: ServerResponse, headers: IncomingHttpHeaders): void {
    const declared = Number(headers['content-length']);
    const listenHeader =
      String(headers['mcp-method'] ?? '').trim() === 'subscriptions/listen' &&
      headers['mcp-session-id'] === undefined;
    if (listenHeader) {
      // Refused before the body is kept: what a listen would hold is bounded before it is read.
      const refusal = holdings.listenRefusal(
        clientKey(req),
        Number.isFinite(declared) ? declared : 0,
      );
      if (refusal) {
        refuseAfterDrain(req, () => refuse(res, refusal, null, '5'));
        return;
      }
    }
    // The media type itself, parsed: `text/plain;charset=application/json` is text/plain
    // (a type a web page may send without a CORS preflight).
    if (mediaTypeOf(headers['content-type']) !== 'application/json') {
      sendJsonError(
        res,
        415,
        RpcErrorCode.InvalidRequest,
        'Unsupported Media Type: send application/json',
      );
      return;
    }
    readBody(req, declared, maxBodyBytes, (body, error) => {
      try {
        const pending = received(req, res, headers, body, error);
        if (pending !== undefined) pending.catch((e: unknown) => failed(res, e));
      } catch (e) {
        failed(res, e);
      }
    });
  }

  /** A POST's body, read (or why not): parsed, checked, and handed to its session or exchange. */
  function received(
    req: IncomingMessage,
    res: ServerResponse,
    headers: IncomingHttpHeaders,
    body: Buffer | undefined,
    readError: unknown,
  ): Promise<void> | undefined {
    let parsed: unknown;
    let bodyBytes = 0;
    try {
      if (body === undefined) throw readError;
      bodyBytes = body.length;
      const text = body.toString('utf8');
      // Refused before it is parsed: every walk of a request (validation, a handler's)
      // must not meet a nesting it would overflow the stack on.
      const tooDeep = checkJsonTextDepth(text, DEFAULT_MAX_JSON_DEPTH);
      if (tooDeep !== undefined) {
        sendJsonError(
          res,
          400,
          RpcErrorCode.InvalidRequest,
          `Invalid Request: the body nests deeper than the ${tooDeep.maxDepth}-level limit`,
          tooDeep.kind === 'request' ? tooDeep.id : null,
        );
        return;
      }
      parsed = JSON.parse(text);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendJsonError(
          res,
          413,
          RpcErrorCode.InvalidRequest,
          `Payload Too Large: the body exceeds ${maxBodyBytes} bytes`,
          null,
          { connection: 'close' },
        );
      } else {
        sendJsonError(res, 400, RpcErrorCode.ParseError, 'Parse error: the body is not JSON');
      }
      return;
    }
    if (Array.isArray(parsed)) {
      sendJsonError(
        res,
        400,
        RpcErrorCode.InvalidRequest,
        'Invalid Request: send one message per POST',
      );
      return;
    }
    const checked = validateMessage(parsed);
    if (!checked.ok) {
      sendJsonError(res, 400, RpcErrorCode.InvalidRequest, checked.error.message, checked.error.id);
      return;
    }
    const message = checked.message;
    const id = 'id' in message ? ((message.id as string | number | null) ?? null) : null;
    const sessionId = headers['mcp-session-id'];
    const version = String(headers['mcp-protocol-version'] ?? '').trim();

    if (typeof sessionId === 'string') {
      // A session open here (the usual case) is used in this turn; one being taken up from
      // the store is waited for.
      const here = sessionHere(sessionId);
      if (here !== undefined || !store) {
        sessionPost(req, res, headers, message, id, version, here);
        return;
      }
      return findSession(req, sessionId).then((found) =>
        sessionPost(req, res, headers, message, id, version, found),
      );
    }

    const modern = hasModernMeta(message) || (version !== '' && !isLegacyVersion(version));
    if (!modern) {
      if ('method' in message && message.method === 'initialize' && 'id' in message) {
        return openSession(req, res, message as JsonRpcRequest);
      }
      sendJsonError(
        res,
        400,
        -32000,
        'Bad Request: no session; send initialize first (2025 revisions) or a request with _meta (2026-07-28)',
        id,
      );
      return;
    }
    if (!('method' in message) || !('id' in message)) {
      // 2026-07-28 defines no client notifications over HTTP; accept and ignore them.
      res.writeHead(202).end();
      return;
    }
    const request = message as JsonRpcRequest;
    const mismatch = checkModernHeaders(headers, request, (tool) => server.toolInputSchema(tool));
    if (mismatch) {
      sendJsonError(
        res,
        statusOfError(mismatch.rpcCode),
        mismatch.rpcCode,
        mismatch.rpcMessage,
        request.id,
      );
      return;
    }
    const acceptsSse = acceptsMediaType(headers.accept, 'text/event-stream');
    if (request.method === 'subscriptions/listen' && !acceptsSse) {
      sendJsonError(
        res,
        406,
        RpcErrorCode.InvalidRequest,
        'Not Acceptable: subscriptions/listen answers with an event stream; accept text/event-stream',
        request.id,
      );
      return;
    }
    const listen = request.method === 'subscriptions/listen';
    const key = listen ? clientKey(req) : '';
    if (listen) {
      const refusal = holdings.listenRefusal(key, bodyBytes);
      if (refusal) {
        refuse(res, refusal, request.id, '5');
        return;
      }
      holdings.holdListen(key, bodyBytes, res);
    }
    return exchange(req, res, headers, request, acceptsSse, listen);
  }

  /** A POST of a session (`session`: its copy here, if any). */
  function sessionPost(
    req: IncomingMessage,
    res: ServerResponse,
    headers: IncomingHttpHeaders,
    message: JsonRpcMessage,
    id: string | number | null,
    version: string,
    session: LegacySessionTransport | undefined,
  ): void {
    if (!session || session.isClosed) {
      sendJsonError(res, 404, SESSION_NOT_FOUND, 'Session not found: initialize a new session', id);
      return;
    }
    if (version !== '' && !isLegacyVersion(version)) {
      sendJsonError(
        res,
        400,
        RpcErrorCode.InvalidRequest,
        `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} for this session`,
        id,
      );
      return;
    }
    // The session's own id string: the one its count is kept under (see `handler`).
    const busy = holdings.sessionStreamRefusal(session.sessionId);
    if (busy) {
      refuse(res, busy, id, '1');
      return;
    }
    session.handlePost(req, res, message, options.authInfo?.(req), headers);
  }

  /** A 2026-07-28 request: its own exchange, answered on this POST. */
  async function exchange(
    req: IncomingMessage,
    res: ServerResponse,
    headers: IncomingHttpHeaders,
    request: JsonRpcRequest,
    acceptsSse: boolean,
    listen: boolean,
  ): Promise<void> {
    const transport = new ModernExchangeTransport(res, request, acceptsSse, options.errorStatus);
    const session = await server.connect(transport, {
      era: 'modern',
      label: 'HTTP client',
      networkTransport: 'tcp',
    });
    exchanges.add(session);
    let maxAge: ReturnType<typeof setTimeout> | undefined;
    if (listen && maxStreamAgeMs > 0) {
      // A listen stream ends with its graceful result after the maximum age; the client listens again.
      maxAge = setTimeout(() => void session.close(), maxStreamAgeMs);
      maxAge.unref();
    }
    const previous = session.onclose;
    session.onclose = () => {
      if (maxAge) clearTimeout(maxAge);
      exchanges.delete(session);
      previous?.();
    };
    transport.deliver(req, options.authInfo?.(req), traceHeadersOf(headers));
  }

  async function openSession(
    req: IncomingMessage,
    res: ServerResponse,
    message: JsonRpcRequest,
  ): Promise<void> {
    const key = clientKey(req);
    const crowded = holdings.sessionRefusal(key);
    if (crowded) {
      refuse(res, crowded, message.id, '5');
      return;
    }
    if (sessions.size >= maxSessions) {
      sendJsonError(
        res,
        503,
        -32000,
        `Service Unavailable: ${maxSessions} sessions are open`,
        message.id,
        {
          'retry-after': '5',
        },
      );
      return;
    }
    const sessionId = generateSessionId();
    if (!/^[\x21-\x7e]+$/.test(sessionId))
      throw new TypeError('generateSessionId must return visible ASCII');
    if (alive) await alive;
    const { transport } = await startSession(key, sessionId);
    transport.handlePost(req, res, message, options.authInfo?.(req));
  }

  /** A request that failed after it was taken in: 503 when another try may work, else 500. */
  function failed(res: ServerResponse, error: unknown): void {
    if (error instanceof StoreUnavailable) {
      sendJsonError(res, 503, -32000, 'Service Unavailable: the session store failed', null, {
        'retry-after': '1',
      });
      return;
    }
    if (McpServerError.isInstance(error) && error.code === ServerErrorCode.Closed) {
      sendJsonError(res, 503, -32000, 'Service Unavailable: the server is shutting down');
      return;
    }
    server.reportError(error instanceof Error ? error : new Error(String(error)));
    sendJsonError(res, 500, RpcErrorCode.InternalError, 'Internal error');
  }

  /** A GET (the session's stream, a resumption) or a DELETE (the session's end). */
  async function getOrDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (req.method !== 'GET' && req.method !== 'DELETE') {
      sendJsonError(res, 405, -32000, 'Method Not Allowed', null, { allow: 'GET, POST, DELETE' });
      return;
    }
    if (typeof sessionId !== 'string') {
      // The 2026-07-28 binding has neither the GET stream nor DELETE.
      sendJsonError(res, 405, -32000, 'Method Not Allowed without an Mcp-Session-Id', null, {
        allow: 'POST',
      });
      return;
    }
    const session = await findSession(req, sessionId);
    if (!session || session.isClosed) {
      sendJsonError(res, 404, SESSION_NOT_FOUND, 'Session not found: initialize a new session');
      return;
    }
    if (req.method === 'DELETE') {
      if (store) {
        // Gone for every replica: the record, the event logs, and their copies.
        await store.deleteSession(sessionId);
        await store.publish(sessionId, { kind: 'closed' });
      }
      await session.close();
      res.writeHead(200).end();
      return;
    }
    const busy = holdings.sessionStreamRefusal(sessionId);
    if (busy) {
      refuse(res, busy, null, '1');
      return;
    }
    if (!acceptsMediaType(req.headers.accept, 'text/event-stream')) {
      sendJsonError(
        res,
        406,
        -32000,
        'Not Acceptable: a GET stream needs Accept: text/event-stream',
      );
      return;
    }
    session.handleGet(req, res);
  }

  // Not `async`: a POST of a session open here is taken in without a promise (the returned
  // one is settled; what a request still waits for, it handles itself).
  const handler = ((req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Read once and handed down: Node's `headers` getter is a megamorphic lookup per read.
    const headers = req.headers;
    const refusal = refuseHostOrOrigin(req, allowedHosts, options.allowedOrigins, headers);
    if (refusal) {
      sendJsonError(res, 403, -32000, `Forbidden: ${refusal}`);
      return TAKEN;
    }
    const full = holdings.streamRefusal();
    if (full) {
      refuseAfterDrain(req, () => refuse(res, full, null, '5'));
      return TAKEN;
    }
    const sid = headers['mcp-session-id'];
    const open = typeof sid === 'string' ? sessions.get(sid) : undefined;
    // Counted under the session's own id string (the map's key): the request's is a new
    // string, which every lookup of the count would compare character by character.
    holdings.holdStream(res, open === undefined ? undefined : open.sessionId);
    try {
      if (req.method === 'POST') {
        post(req, res, headers);
        return TAKEN;
      }
      return getOrDelete(req, res).catch((error: unknown) => failed(res, error));
    } catch (error) {
      failed(res, error);
      return TAKEN;
    }
  }) as StreamableHttpHandler;

  Object.defineProperty(handler, 'sessionCount', { get: () => sessions.size });
  handler.stats = () => ({
    sessions: sessions.size,
    streams: holdings.streams,
    listenStreams: holdings.listenStreams,
    listenBytes: holdings.listenBytes,
    bufferedEvents: pool.events,
    bufferedBytes: pool.bytes,
  });
  handler.close = async () => {
    if (heartbeat) clearInterval(heartbeat);
    // Open subscriptions/listen streams end with their graceful result first.
    await Promise.allSettled([...exchanges].map((s) => s.close()));
    await Promise.allSettled([...sessions.values()].map((s) => s.close()));
    sessions.clear();
  };
  return handler;
}

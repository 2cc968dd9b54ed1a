import { randomInt } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  ConnectionClosedError,
  type JsonRpcId,
  type JsonRpcMessage,
  type MessageExtra,
  SENT,
  type Transport,
  type TransportSendOptions,
} from '@mcpkit/jsonrpc';
import { SlotMap } from '@mcpkit/jsonrpc/internal';
import type { SessionEventBuffer } from './event-buffer.js';
import { ownerTag, parseEventId, replicaTagPart } from './event-id.js';
import { ACCEPTS_JSON, ACCEPTS_SSE, streamAccepts } from './media-type.js';
import { asError, endedStreamTtlMs, OwnerProbes, resumeRemote } from './remote-stream.js';
import type { SessionBusMessage, SessionStore, StoredEvent } from './session-store.js';
import { primingEvent, sendJsonError, sseEvent, startSse } from './sse.js';
import type { ErrorStatus } from './streamable-http-handler.js';
import { traceHeadersOf } from './trace-headers.js';

/** How a session is shared with other replicas through a `SessionStore`. */
export interface SharedSessionOptions {
  store: SessionStore;
  /** This replica's id (it names the replica in stream owners and server request ids). */
  replica: string;
  /** How long the store keeps a session's data without activity, in ms. */
  ttlMs: number;
  /** How often a replica that resumed another's stream checks that the other is alive, in ms. */
  ownerCheckMs: number;
  /** Told when the store fails (the request it served goes on locally). */
  onerror: (error: Error) => void;
}

export interface LegacySessionTransportOptions {
  sessionId: string;
  /** This session's kept events for `Last-Event-ID` resumption (bounded in bytes and count). */
  events: SessionEventBuffer;
  /** The SSE `retry` hint, in ms. */
  retryMs: number;
  /** `auto`: JSON when the answer is all there is, SSE once anything else is sent first. */
  responseMode: 'auto' | 'sse' | 'json';
  /** A session with no POST and no request in progress for this long is closed. */
  idleTimeoutMs: number;
  /** A GET stream is ended (cleanly: the client may resume it) after this long; 0: never. */
  maxStreamAgeMs: number;
  /** The status of an error answered alone as JSON (`StreamableHttpOptions.errorStatus`). */
  errorStatus?: ErrorStatus;
  /** Shares the session with other replicas (POST stream events, the bus). */
  shared?: SharedSessionOptions;
}

interface Stream {
  /** 0 is the standalone GET stream. */
  readonly id: number;
  res: ServerResponse | undefined;
  mode: 'pending' | 'sse' | 'json';
  /**
   * Requests it still has to answer: a POST stream carries one (a POST has one message),
   * the standalone stream none. Its last answer is its final event.
   */
  unanswered: number;
  ended: boolean;
  readonly acceptsJson: boolean;
  /** The seq of its last event (its priming event's at first): the next one's `prev`. */
  last?: number;
  /** What its event ids carry after `<stream>_<seq>`: its owner (`event-id.ts`), or `''`. */
  tag: string;
}

function isResponse(message: JsonRpcMessage): boolean {
  return !('method' in message);
}

/**
 * One Streamable HTTP session of the 2025 revisions, as a `Transport` for a
 * `ServerSession`: requests arrive on POSTs, and what the server sends goes to the POST
 * stream of the request it relates to, else to the standalone GET stream. SSE events get
 * ids `<stream>_<seq>` (a shared session's POST streams add their owner, `event-id.ts`) and
 * stay in a bounded buffer so that a client can resume a broken
 * stream with `Last-Event-ID`: until the stream's last event was handed to a connection
 * that then ended cleanly, or the client resumed past them, or the byte bounds evicted
 * them (a resumption asking for an evicted event is then refused with 410).
 */
export class LegacySessionTransport implements Transport {
  onmessage: ((message: JsonRpcMessage, extra?: MessageExtra) => void) | undefined;
  onerror: ((error: Error) => void) | undefined;
  onclose: ((cause?: Error) => void) | undefined;
  readonly capabilities = { serverToClientRequests: true, sessions: true } as const;
  /** Shared sessions: a GET stream (new or resumed) is held here now. */
  onstandalone: (() => void) | undefined;
  /** Shared sessions: another replica changed the record, or follows the subscriptions now. */
  onshared: ((message: SessionBusMessage & { kind: 'record' | 'follow' }) => void) | undefined;
  readonly description: string;
  /** The negotiated revision (the session sets it after `initialize`). */
  protocolVersion: string | undefined;

  /** By stream id and by request id: `SlotMap`s, whose storage does not churn per request. */
  private readonly streams = new SlotMap<number, Stream>();
  private readonly byRequest = new SlotMap<JsonRpcId, Stream>();
  private readonly standalone: Stream;
  /** Shared sessions: the seq of the GET stream's last event written here. */
  private standaloneSeq = 0;
  /** Shared sessions: GET-stream events that came while the log was being read. */
  private standaloneEarly: StoredEvent[] | undefined;
  /** Shared sessions: unlogged GET-stream messages that came meanwhile (sent after those). */
  private unloggedEarly: string[] = [];
  private nextStream: number;
  /** Shared sessions: server request ids as sent (replica-tagged) → as the session made them. */
  private readonly outgoing = new Map<string, JsonRpcId>();
  /** Shared sessions: streams of other replicas this one resumed, by stream id. */
  private readonly tails = new Set<() => void>();
  /** Shared sessions: this replica's id as its streams' event ids carry it (undefined: too long). */
  private readonly replicaPart: string | undefined;
  /** Shared sessions: resumptions waiting for a stream owner's answer. */
  private readonly probes = new OwnerProbes();
  private readonly firstStream: number;
  /** Whether a GET stream was ever opened (else no id of stream 0 was ever given out). */
  private standaloneOpened = false;
  private seq = 0;
  private closed = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The id of the `initialize` that opened the session: a failed one ends it. */
  private initializeId: JsonRpcId | undefined;

  constructor(private readonly options: LegacySessionTransportOptions) {
    this.description = `HTTP session ${options.sessionId}`;
    // Stream ids of a shared session must not collide between replicas: each starts at random.
    this.firstStream = options.shared ? randomInt(1, 2 ** 40) : 1;
    this.nextStream = this.firstStream;
    this.replicaPart = options.shared ? replicaTagPart(options.shared.replica) : undefined;
    this.standalone = {
      id: 0,
      res: undefined,
      mode: 'sse',
      unanswered: 0,
      ended: false,
      acceptsJson: false,
      tag: '',
    };
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether this replica holds the session's GET stream now. */
  get holdsStandalone(): boolean {
    return this.standalone.res !== undefined;
  }

  async start(): Promise<void> {
    this.touch();
  }

  /**
   * A POST of this session (the message is already validated). `headers` is `req.headers`
   * when the caller has read them already (Node's getter is a megamorphic lookup per read).
   */
  handlePost(
    req: IncomingMessage,
    res: ServerResponse,
    message: JsonRpcMessage,
    authInfo?: AuthInfo,
    headers: IncomingHttpHeaders = req.headers,
  ): void {
    const traceHeaders = traceHeadersOf(headers);
    // Built field by field: spreads of optional parts cost an object each, on every POST.
    const extra: MessageExtra = { httpPeer: req };
    if (authInfo !== undefined) extra.authInfo = authInfo;
    if (traceHeaders !== undefined) extra.traceHeaders = traceHeaders;
    this.touch();
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      if (this.nextStream === this.firstStream) this.initializeId = message.id as JsonRpcId;
    }
    const shared = this.options.shared;
    if (shared && !this.isLocal(message)) {
      // An answer to another replica's request, or a cancellation of its request: sent there.
      res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
      shared.store
        .publish(this.sessionId, { kind: 'client', message })
        .catch((e: unknown) => shared.onerror(asError(e)));
      return;
    }
    if (isResponse(message)) message = this.restoreId(message);
    if (isResponse(message) || !('id' in message)) {
      res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
      this.onmessage?.(message, extra);
      return;
    }
    const requestId = message.id as JsonRpcId;
    if (this.byRequest.has(requestId)) {
      // Two live requests under one id could not be told apart.
      sendJsonError(
        res,
        409,
        -32600,
        `Invalid Request: request id ${JSON.stringify(requestId)} is still in progress in this session`,
        requestId,
      );
      return;
    }
    // The Accept header, parsed once for both types (and remembered for the next request).
    const accepts = streamAccepts(headers.accept);
    const acceptsSse = (accepts & ACCEPTS_SSE) !== 0;
    const acceptsJson = (accepts & ACCEPTS_JSON) !== 0 || !acceptsSse;
    const stream: Stream = {
      id: this.nextStream++,
      res,
      mode: this.options.responseMode === 'sse' && acceptsSse ? 'sse' : 'pending',
      unanswered: 1,
      ended: false,
      acceptsJson: acceptsJson && this.options.responseMode !== 'sse',
      tag: '',
    };
    if (!acceptsSse) stream.mode = 'json';
    this.streams.set(stream.id, stream);
    this.byRequest.set(requestId, stream);
    if (shared && stream.mode !== 'json') {
      // The stream's owner goes in its event ids: opening it writes nothing to the store. An
      // owner too long to carry there is kept in the store instead.
      const tag =
        this.replicaPart === undefined
          ? undefined
          : ownerTag(this.replicaPart, requestId as string | number);
      if (tag !== undefined) stream.tag = tag;
      else
        shared.store
          .openStream(
            this.sessionId,
            stream.id,
            { replica: shared.replica, requestId: requestId as string | number },
            shared.ttlMs,
          )
          .catch((e: unknown) => shared.onerror(asError(e)));
    }
    if (stream.mode === 'sse') this.openSse(stream);
    // A dropped connection is not a cancellation in these revisions: the client may resume.
    res.on('close', () => {
      if (stream.res === res) stream.res = undefined;
    });
    this.onmessage?.(message, extra);
  }

  /**
   * A GET of this session: the standalone stream, or the resumption of a broken one. A GET
   * is not activity for the idle timer: an open stream alone does not keep a session.
   */
  handleGet(req: IncomingMessage, res: ServerResponse): void {
    const lastEventId = req.headers['last-event-id'];
    if (typeof lastEventId === 'string' && lastEventId !== '') {
      this.resume(lastEventId, res);
      return;
    }
    if (this.standalone.res) {
      sendJsonError(res, 409, -32000, 'Conflict: this session already has a GET stream open');
      return;
    }
    if (this.options.shared) {
      void this.holdShared(res, undefined, this.options.shared);
      return;
    }
    this.standalone.res = res;
    // A fresh GET (no Last-Event-ID) is a new stream: the old one's events can't be asked for.
    this.options.events.forget(0);
    this.standaloneOpened = true;
    startSse(
      res,
      { 'mcp-session-id': this.sessionId },
      this.resumable() ? primingEvent(`0_${this.seq}`, this.options.retryMs) : undefined,
    );
    res.on('close', () => {
      if (this.standalone.res === res) this.standalone.res = undefined;
    });
    this.endAtMaxAge(res);
  }

  /**
   * Shared sessions: the GET stream held here, its events from the session's log in the
   * store (one sequence across replicas): after `after` when the client resumes (its
   * messages sent while no replica held the stream included), none before a fresh one's
   * priming event. Messages that arrive on the bus meanwhile follow, in order.
   */
  private async holdShared(
    res: ServerResponse,
    resumed: { after: number; lastEventId: string } | undefined,
    shared: SharedSessionOptions,
  ): Promise<void> {
    const held = this.standalone.res;
    if (held && held !== res) held.end();
    this.standalone.res = res;
    const early: StoredEvent[] = [];
    this.standaloneEarly = early;
    res.on('close', () => {
      if (this.standalone.res === res) this.standalone.res = undefined;
    });
    let all: StoredEvent[];
    try {
      all = await shared.store.eventsAfter(this.sessionId, 0, 0);
    } catch (error) {
      shared.onerror(asError(error));
      if (this.standalone.res === res) {
        this.standalone.res = undefined;
        this.unloggedEarly = [];
      }
      sendJsonError(res, 503, -32000, 'Service Unavailable: the session store failed');
      return;
    } finally {
      if (this.standaloneEarly === early) this.standaloneEarly = undefined;
    }
    if (this.standalone.res !== res) {
      res.end();
      return;
    }
    const last = all.length > 0 ? all[all.length - 1]!.seq : 0;
    if (resumed) {
      const next = all.find((e) => e.seq > resumed.after);
      if (next?.prev !== undefined && next.prev > resumed.after) {
        this.standalone.res = undefined;
        sendJsonError(
          res,
          410,
          -32000,
          `Gone: events after Last-Event-ID ${JSON.stringify(resumed.lastEventId)} were trimmed from the session store's event log (its per-stream bound); they cannot be replayed`,
        );
        return;
      }
    }
    startSse(
      res,
      { 'mcp-session-id': this.sessionId },
      !resumed && this.resumable() ? primingEvent(`0_${last}`, this.options.retryMs) : undefined,
    );
    this.standaloneSeq = resumed ? resumed.after : last;
    for (const e of [...all, ...early].sort((a, b) => a.seq - b.seq)) this.deliverStandalone(e);
    for (const data of this.unloggedEarly.splice(0)) this.deliverUnlogged(data);
    this.endAtMaxAge(res);
    this.onstandalone?.();
  }

  /** Shared sessions: an event of the GET stream, written if this replica holds it. */
  private deliverStandalone(event: StoredEvent): void {
    if (this.standaloneEarly) {
      this.standaloneEarly.push(event);
      return;
    }
    const res = this.standalone.res;
    if (!res || event.seq <= this.standaloneSeq) return;
    this.standaloneSeq = event.seq;
    res.write(sseEvent(event.data, `0_${event.seq}`));
  }

  /**
   * Shared sessions, a store without `appendStandalone`: a GET-stream message no log keeps,
   * written under this replica's next seq if it holds the stream.
   */
  private deliverUnlogged(data: string): void {
    if (this.standaloneEarly) {
      this.unloggedEarly.push(data);
      return;
    }
    const res = this.standalone.res;
    if (!res) return;
    res.write(sseEvent(data, `0_${++this.standaloneSeq}`));
  }

  /** Ends a GET connection after the maximum stream age; the client reconnects (and resumes). */
  private endAtMaxAge(res: ServerResponse): void {
    if (this.options.maxStreamAgeMs <= 0) return;
    const timer = setTimeout(() => res.end(), this.options.maxStreamAgeMs);
    timer.unref();
    res.on('close', () => clearTimeout(timer));
  }

  /** SEP-1699: the server ends a request's stream; the client comes back with `Last-Event-ID`. */
  closeSseStream(requestId: JsonRpcId): void {
    const stream = this.byRequest.get(requestId);
    if (!stream || stream.ended || !this.resumable()) return;
    if (stream.mode === 'pending') this.openSse(stream);
    if (stream.mode !== 'sse') return;
    const res = stream.res;
    stream.res = undefined;
    res?.end();
  }

  send(message: JsonRpcMessage, options?: TransportSendOptions): Promise<void> {
    if (this.closed) {
      return Promise.reject(new ConnectionClosedError(`${this.description} is closed`));
    }
    if (isResponse(message)) {
      const id = (message as { id: JsonRpcId }).id;
      const stream = this.byRequest.get(id);
      if (stream) {
        this.byRequest.delete(id);
        stream.unanswered--;
        this.write(stream, message, stream.unanswered === 0);
        if (id === this.initializeId) {
          this.initializeId = undefined;
          // A session whose initialize failed can never be used: do not keep it.
          if ('error' in message) void this.close();
        }
        return SENT;
      }
    }
    const shared = this.options.shared;
    if (shared && 'method' in message && 'id' in message && message.id !== null) {
      // Tagged with this replica, so that the client's answer finds its way back here.
      const tagged = `${shared.replica}~${String(message.id)}`;
      this.outgoing.set(tagged, message.id as JsonRpcId);
      message = { ...message, id: tagged } as JsonRpcMessage;
    }
    const related =
      options?.relatedRequestId === undefined
        ? undefined
        : this.byRequest.get(options.relatedRequestId);
    if (related && !related.ended) {
      // A request the server sends on a request's stream: its answer will come on a POST.
      this.write(related, message, false);
    } else {
      this.write(this.standalone, message, false);
    }
    return SENT;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const [, stream] of this.streams.entries()) stream.res?.end();
    this.streams.clear();
    this.byRequest.clear();
    this.standalone.res?.end();
    this.standalone.res = undefined;
    this.options.events.clear();
    for (const end of [...this.tails]) end();
    this.outgoing.clear();
    this.onclose?.();
  }

  /** Shared sessions: whether a client message concerns this replica (else another's). */
  private isLocal(message: JsonRpcMessage): boolean {
    if (isResponse(message)) {
      const id = (message as { id: JsonRpcId }).id;
      return typeof id !== 'string' || this.outgoing.has(id) || !id.includes('~');
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: JsonRpcId } | undefined)?.requestId;
      return requestId === undefined || this.byRequest.has(requestId);
    }
    return true;
  }

  private restoreId(message: JsonRpcMessage): JsonRpcMessage {
    const id = (message as { id: JsonRpcId }).id;
    if (typeof id !== 'string') return message;
    const original = this.outgoing.get(id);
    if (original === undefined) return message;
    this.outgoing.delete(id);
    return { ...message, id: original } as JsonRpcMessage;
  }

  /** Shared sessions: what another replica said about this session. */
  onbus(message: SessionBusMessage): void {
    if (this.closed) return;
    switch (message.kind) {
      case 'closed':
        void this.close();
        return;
      case 'standalone':
        this.deliverStandalone(message.event);
        return;
      case 'unlogged':
        this.deliverUnlogged(message.data);
        return;
      case 'client': {
        const m = message.message;
        const mine = isResponse(m)
          ? this.outgoing.has(String((m as { id: JsonRpcId }).id))
          : 'method' in m && m.method === 'notifications/cancelled' && !('id' in m)
            ? this.byRequest.has(
                (m.params as { requestId?: JsonRpcId } | undefined)?.requestId as JsonRpcId,
              )
            : false;
        if (!mine) return;
        this.touch();
        this.onmessage?.(isResponse(m) ? this.restoreId(m) : m);
        return;
      }
      case 'record':
      case 'follow':
        if (message.replica !== this.options.shared?.replica) this.onshared?.(message);
        return;
      case 'probe':
        this.answerProbe(message);
        return;
      case 'held':
        this.probes.heard(message);
        return;
      case 'event':
        return;
    }
  }

  /** Shared sessions: another replica asks whether this one still answers a stream. */
  private answerProbe(message: SessionBusMessage & { kind: 'probe' }): void {
    const shared = this.options.shared;
    if (!shared || message.replica !== shared.replica) return;
    const stream = this.streams.get(message.stream);
    const held =
      stream !== undefined && !stream.ended && this.byRequest.get(message.requestId) === stream;
    shared.store
      .publish(this.sessionId, {
        kind: 'held',
        replica: shared.replica,
        stream: message.stream,
        held,
      })
      .catch((e: unknown) => shared.onerror(asError(e)));
  }

  /** Re-arms the idle timer: a POST (or a request still in progress) keeps the session alive. */
  private touch(): void {
    if (this.closed) return;
    // One timer per session, restarted in place: no timer allocated per request.
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(this.onIdle, this.options.idleTimeoutMs);
    // An idle session never keeps the process alive.
    this.idleTimer.unref();
  }

  private readonly onIdle = (): void => {
    // An open GET stream is not activity: only a request the server is still answering is.
    if (this.byRequest.size > 0) this.idleTimer?.refresh();
    else void this.close();
  };

  /** Priming events and resumption exist from 2025-11-25 (older clients do not expect them). */
  private resumable(): boolean {
    return this.protocolVersion !== undefined && this.protocolVersion >= '2025-11-25';
  }

  private openSse(stream: Stream): void {
    stream.mode = 'sse';
    stream.last = this.seq;
    if (!stream.res) return;
    startSse(
      stream.res,
      { 'mcp-session-id': this.sessionId },
      this.resumable()
        ? primingEvent(`${stream.id}_${this.seq}${stream.tag}`, this.options.retryMs)
        : undefined,
    );
  }

  private write(stream: Stream, message: JsonRpcMessage, final: boolean): void {
    this.writeData(
      stream,
      JSON.stringify(message),
      final,
      'error' in message ? message.error : undefined,
    );
  }

  private writeData(
    stream: Stream,
    data: string,
    final: boolean,
    error?: { code: number; message: string; data?: unknown },
  ): void {
    const shared = this.options.shared;
    if (shared && stream === this.standalone) {
      // Kept in the session's log (the client gets it when it resumes its GET stream) and
      // sent on by the replica that holds the stream now, if any (this one included). A
      // store without the log's method (written before it) only passes it on.
      const { store } = shared;
      const kept = store.appendStandalone
        ? store.appendStandalone(this.sessionId, data, shared.ttlMs, this.options.events.maxEvents)
        : store.publish(this.sessionId, { kind: 'unlogged', data });
      kept.catch((e: unknown) => shared.onerror(asError(e)));
      return;
    }
    if (stream.mode === 'pending') {
      if (final && stream.acceptsJson) {
        stream.mode = 'json';
      } else {
        this.openSse(stream);
      }
    }
    if (stream.mode === 'json') {
      if (!final) return; // A JSON answer carries the response alone.
      stream.ended = true;
      this.streams.delete(stream.id);
      const res = stream.res;
      if (res && !res.headersSent) {
        const special =
          error !== undefined && this.options.errorStatus
            ? this.options.errorStatus(error, res.req)
            : undefined;
        const headers = {
          'content-type': 'application/json',
          'mcp-session-id': this.sessionId,
          // Known length: the body goes out in one piece, without chunked framing.
          'content-length': Buffer.byteLength(data),
        };
        // The hook's headers first, ours over them; no literal spread (V8's slow path on
        // Node 20) on the answer of every request.
        res.writeHead(
          special?.status ?? 200,
          special?.headers === undefined ? headers : Object.assign({}, special.headers, headers),
        );
        res.end(data);
      }
      return;
    }
    const seq = ++this.seq;
    const prev = stream.last;
    stream.last = seq;
    // Kept unless no one can ask for it: stream 0 before any GET was opened.
    if (stream !== this.standalone || this.standaloneOpened)
      this.options.events.add(stream.id, seq, data);
    if (shared && stream !== this.standalone) {
      // Kept where a replica that resumes this stream finds it (and told to one that did).
      shared.store
        .appendEvent(
          this.sessionId,
          { stream: stream.id, seq, prev, data, final },
          shared.ttlMs,
          this.options.events.maxEvents,
          final ? Math.min(endedStreamTtlMs, shared.ttlMs) : undefined,
        )
        .catch((e: unknown) => shared.onerror(asError(e)));
    }
    stream.res?.write(sseEvent(data, `${stream.id}_${seq}${stream.tag}`));
    if (final) {
      stream.ended = true;
      this.streams.delete(stream.id);
      const res = stream.res;
      stream.res = undefined;
      if (res) this.endDelivered(res, stream.id);
    }
  }

  /**
   * Ends a connection that carried a stream's last event: once it finished cleanly (every
   * byte handed to the socket), nothing of that stream will be asked for again, and its
   * events go. A connection that broke first leaves them for a resumption.
   */
  private endDelivered(res: ServerResponse, streamId: number): void {
    const events = this.options.events;
    res.end(() => events.forget(streamId));
  }

  private resume(lastEventId: string, res: ServerResponse): void {
    const parsed = parseEventId(lastEventId);
    // The GET stream's ids carry no owner.
    const id = parsed && (parsed.stream !== 0 || parsed.tag === '') ? parsed : undefined;
    const streamId = id ? id.stream : Number.NaN;
    const after = id ? id.seq : Number.NaN;
    if (id && streamId === 0 && this.options.shared) {
      void this.holdShared(res, { after, lastEventId }, this.options.shared);
      return;
    }
    const live = streamId === 0 ? this.standalone : this.streams.get(streamId);
    const buffer = this.options.events;
    if (id && !live && !buffer.knows(streamId) && this.options.shared) {
      const context = {
        sessionId: this.sessionId,
        shared: this.options.shared,
        maxEvents: buffer.maxEvents,
        tails: this.tails,
        probes: this.probes,
      };
      void resumeRemote(context, id, lastEventId, res);
      return;
    }
    if (!id || (!live && !buffer.knows(streamId))) {
      sendJsonError(
        res,
        404,
        -32000,
        `Cannot resume from Last-Event-ID ${JSON.stringify(lastEventId)}: no such stream in this session`,
      );
      return;
    }
    const events = buffer.after(streamId, after);
    if (events === 'lost') {
      // Replaying the rest would skip what was evicted: the client hears so instead.
      sendJsonError(
        res,
        410,
        -32000,
        `Gone: events after Last-Event-ID ${JSON.stringify(lastEventId)} were dropped from this session's event buffer (its ${buffer.maxBytes}-byte or ${buffer.maxEvents}-event bound, or the server's total); they cannot be replayed`,
      );
      return;
    }
    // The client has everything up to `after` on this stream: those go.
    buffer.acknowledge(streamId, after);
    if (live?.res && live.res !== res) live.res.end();
    // What is replayed goes out with the head, in one write; under the stream's own tag
    // while it is open here, else the one the client holds.
    const tag = live ? live.tag : id.tag;
    startSse(
      res,
      { 'mcp-session-id': this.sessionId },
      events.map((e) => sseEvent(e.data, `${e.stream}_${e.seq}${tag}`)).join(''),
    );
    if (!live || live.ended) {
      this.endDelivered(res, streamId);
      return;
    }
    live.res = res;
    res.on('close', () => {
      if (live.res === res) live.res = undefined;
    });
    if (live === this.standalone) this.endAtMaxAge(res);
  }
}

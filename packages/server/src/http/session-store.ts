import type { JsonRpcMessage } from '@mcpkit/jsonrpc';
import { ExpiryHeap } from './expiry-heap.js';

/**
 * What a 2025 session is, as far as another replica needs to serve it: what `initialize`
 * settled and what the client changed since. Plain JSON (a store keeps it as text).
 */
export interface SessionRecord {
  protocolVersion: string;
  clientCapabilities: Record<string, unknown>;
  clientInfo?: { name: string; version: string; [key: string]: unknown } | undefined;
  logLevel?: string | undefined;
  /** Resource URIs the client subscribed to. */
  subscriptions: string[];
}

/** One SSE event of a POST stream, as kept for `Last-Event-ID` resumption. */
export interface StoredEvent {
  stream: number;
  seq: number;
  /**
   * The seq of the stream's event before this one (its priming event's for the first): a
   * resumption from an event older than the first one kept finds the gap (410).
   */
  prev?: number | undefined;
  /** The JSON-RPC message's text, byte-exact as it was sent. */
  data: string;
  /** The stream's last event (the answer to its request). */
  final: boolean;
}

/** Who answers a POST stream: the replica, and the request (to fail it if the replica dies). */
export interface StreamOwner {
  replica: string;
  requestId: string | number;
}

/** What replicas tell each other about one session. */
export type SessionBusMessage =
  /** An event of a POST stream was kept: a replica that resumed that stream sends it on. */
  | { kind: 'event'; event: StoredEvent }
  /** A message of the session's GET stream, as kept in its log: the replica holding the stream sends it. */
  | { kind: 'standalone'; event: StoredEvent }
  /**
   * A message of the session's GET stream through a store without `appendStandalone` (not
   * kept): the replica holding the stream sends it under its own seq; if none holds it, it
   * is lost.
   */
  | { kind: 'unlogged'; data: string }
  /** A client's answer to a server request (or a cancellation), for the replica it concerns. */
  | { kind: 'client'; message: JsonRpcMessage }
  /** The session was ended (DELETE): every replica lets go of it. */
  | { kind: 'closed' }
  /** A replica changed the session's record (a subscription, the log level). */
  | { kind: 'record'; replica: string; record: SessionRecord }
  /**
   * A replica follows the session's resource subscriptions now (it holds the GET stream):
   * the others let go, so that an update reaches the client once.
   */
  | { kind: 'follow'; replica: string }
  /**
   * A replica resuming a POST stream whose owner it knows from the client's `Last-Event-ID`
   * alone (not from the store) asks that owner whether it still answers the stream.
   */
  | { kind: 'probe'; replica: string; stream: number; requestId: string | number }
  /** The owner's answer to a `probe`: whether it still answers that stream. */
  | { kind: 'held'; replica: string; stream: number; held: boolean };

/**
 * Where replicas of one Streamable HTTP endpoint share their 2025 sessions: the session
 * records, the event logs of POST streams, a message bus per session, and which replicas
 * are alive. `createMemorySessionStore` shares them within one process; a Redis store
 * (`@mcpkit/gateway-redis`) across processes and machines. Every method may reject (the
 * store is down); the handler answers such a request with 503.
 */
export interface SessionStore {
  /** Saves a session's record; it expires after `ttlMs` without `touchSession`. */
  saveSession(sessionId: string, record: SessionRecord, ttlMs: number): Promise<void>;
  loadSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** Keeps a session (and its event logs) another `ttlMs`. */
  touchSession(sessionId: string, ttlMs: number): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Records who answers a POST stream (before its first event). Only for a stream whose
   * owner does not fit in its event ids (a replica id over 64 bytes, a string request id over
   * 96, a number that is not a safe integer): the others carry it there and write nothing
   * when they open.
   */
  openStream(sessionId: string, stream: number, owner: StreamOwner, ttlMs: number): Promise<void>;
  streamOwner(sessionId: string, stream: number): Promise<StreamOwner | undefined>;
  /**
   * Keeps an event (at most `maxEvents` per stream, the oldest go) and publishes it on the
   * stream's channel, `<sessionId>#<stream>`. `endTtlMs` comes with a stream's last event
   * (`final`): from then on the stream's owner and log are kept that long and no longer
   * extended by `touchSession`, so that a busy session does not keep every call's log (a
   * store that ignores it keeps them as long as the session: about 0.9 kB per call in Redis).
   * Most streams have no `openStream` before their first event: the log is the session's
   * from its first event on (extended by `touchSession` until it ends, gone with
   * `deleteSession`).
   */
  appendEvent(
    sessionId: string,
    event: StoredEvent,
    ttlMs: number,
    maxEvents: number,
    endTtlMs?: number,
  ): Promise<void>;
  /**
   * Keeps a message of the session's GET stream (stream 0) under the session's next seq (one
   * sequence across replicas, at most `maxEvents` kept) and publishes it on the session's
   * channel as a `standalone` message, in seq order; resolves with the event as kept.
   *
   * Optional (added after the other methods; a store written before keeps working): without
   * it a replica publishes the message as `unlogged` and the replica holding the GET stream
   * sends it; it is not kept for a `Last-Event-ID` resumption on another replica, and one
   * sent while no replica holds the stream is lost (and counted as such).
   */
  appendStandalone?(
    sessionId: string,
    data: string,
    ttlMs: number,
    maxEvents: number,
  ): Promise<StoredEvent>;
  /** The kept events of `stream` after `seq`, oldest first. */
  eventsAfter(sessionId: string, stream: number, seq: number): Promise<StoredEvent[]>;
  /** Publishes on a channel: a session's id, or `<sessionId>#<stream>` for a stream's events. */
  publish(channel: string, message: SessionBusMessage): Promise<void>;
  /** Listens to a channel; resolves once listening, with the way to stop. */
  subscribe(
    channel: string,
    listener: (message: SessionBusMessage) => void,
  ): Promise<() => Promise<void>>;
  /** Says this replica is alive for another `ttlMs`. */
  heartbeat(replica: string, ttlMs: number): Promise<void>;
  isAlive(replica: string): Promise<boolean>;
  /** Resolves when the store answers now (readiness); rejects with why it does not. */
  ping(): Promise<void>;
  /** Lets go of connections (the store's data stays). */
  close(): Promise<void>;
}

interface MemoryEntry {
  value: unknown;
  expires: number;
  /** An ended stream's key: its time left is not extended. */
  ended?: boolean;
  /** The session the entry belongs to (records, logs, owners, counters; not heartbeats). */
  session?: string;
}

/** The in-memory store, with what it holds now. */
export interface MemorySessionStore extends SessionStore {
  /** Entries kept now (records, logs, owners, counters, heartbeats); expired ones go within a second. */
  readonly size: number;
}

/** How often, at most, the memory store drops its expired entries, in ms. */
const sweepEveryMs = 1000;

/**
 * A `SessionStore` in this process's memory: for several handlers (replicas) in one process,
 * and the baseline that a networked store is measured against. Expiry is checked on read,
 * and expired entries are dropped within a second without one (an unref'd timer, armed only
 * while something is due), so ended streams' logs do not stay until their session is deleted.
 */
export function createMemorySessionStore(): MemorySessionStore {
  const entries = new Map<string, MemoryEntry>();
  /**
   * Each session's keys, so that touching or deleting one session costs what that session
   * holds, not what the whole store holds.
   */
  const bySession = new Map<string, Set<string>>();
  const drop = (key: string, e: MemoryEntry): void => {
    entries.delete(key);
    if (e.session === undefined) return;
    const keys = bySession.get(e.session);
    if (keys === undefined) return;
    keys.delete(key);
    if (keys.size === 0) bySession.delete(e.session);
  };
  const listeners = new Map<string, Set<(message: SessionBusMessage) => void>>();
  const due = new ExpiryHeap();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let lastSweep = 0;
  const sweep = (): void => {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    lastSweep = now;
    due.popDue(now, (key) => {
      const e = entries.get(key);
      if (e !== undefined && e.expires <= now) drop(key, e);
    });
    const next = due.next;
    if (next !== undefined) arm(next);
  };
  /** Sweeps at `at`, or a second after the last sweep if that is later (one timer at a time). */
  const arm = (at: number): void => {
    const when = Math.max(at, lastSweep + sweepEveryMs);
    if (when >= timerAt) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = when;
    timer = setTimeout(sweep, Math.max(0, when - Date.now()));
    timer.unref();
  };
  const expireAt = (key: string, at: number): void => {
    due.push(key, at);
    arm(at);
  };
  const get = <T>(key: string): T | undefined => {
    const e = entries.get(key);
    if (!e) return undefined;
    if (e.expires <= Date.now()) {
      drop(key, e);
      return undefined;
    }
    return e.value as T;
  };
  const set = (key: string, value: unknown, ttlMs: number, session?: string): void => {
    const expires = Date.now() + ttlMs;
    entries.set(key, session === undefined ? { value, expires } : { value, expires, session });
    if (session !== undefined) {
      let keys = bySession.get(session);
      if (keys === undefined) {
        keys = new Set();
        bySession.set(session, keys);
      }
      keys.add(key);
    }
    expireAt(key, expires);
  };
  const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  const store: MemorySessionStore = {
    get size() {
      return entries.size;
    },
    async saveSession(id, record, ttlMs) {
      set(`s:${id}`, clone(record), ttlMs, id);
    },
    async loadSession(id) {
      const r = get<SessionRecord>(`s:${id}`);
      return r === undefined ? undefined : clone(r);
    },
    async touchSession(id, ttlMs) {
      const expires = Date.now() + ttlMs;
      for (const key of bySession.get(id) ?? []) {
        const e = entries.get(key);
        if (e !== undefined && !e.ended) {
          e.expires = expires;
          expireAt(key, expires);
        }
      }
    },
    async deleteSession(id) {
      for (const key of bySession.get(id) ?? []) entries.delete(key);
      bySession.delete(id);
    },
    async openStream(id, stream, owner, ttlMs) {
      set(`o:${id}:${stream}`, { ...owner }, ttlMs, id);
    },
    async streamOwner(id, stream) {
      return get<StreamOwner>(`o:${id}:${stream}`);
    },
    async appendEvent(id, event, ttlMs, maxEvents, endTtlMs) {
      const key = `e:${id}:${event.stream}`;
      const list = get<StoredEvent[]>(key) ?? [];
      list.push({ ...event });
      if (list.length > maxEvents) list.splice(0, list.length - maxEvents);
      set(key, list, ttlMs, id);
      if (event.final && endTtlMs !== undefined) {
        for (const k of [key, `o:${id}:${event.stream}`]) {
          const e = entries.get(k);
          if (!e) continue;
          e.expires = Math.min(e.expires, Date.now() + endTtlMs);
          e.ended = true;
          expireAt(k, e.expires);
        }
      }
      await store.publish(`${id}#${event.stream}`, { kind: 'event', event: { ...event } });
    },
    async appendStandalone(id, data, ttlMs, maxEvents) {
      const seq = (get<number>(`n:${id}`) ?? 0) + 1;
      set(`n:${id}`, seq, ttlMs, id);
      const event: StoredEvent = { stream: 0, seq, prev: seq - 1, data, final: false };
      const key = `e:${id}:0`;
      const list = get<StoredEvent[]>(key) ?? [];
      list.push({ ...event });
      if (list.length > maxEvents) list.splice(0, list.length - maxEvents);
      set(key, list, ttlMs, id);
      await store.publish(id, { kind: 'standalone', event: { ...event } });
      return event;
    },
    async eventsAfter(id, stream, seq) {
      return (get<StoredEvent[]>(`e:${id}:${stream}`) ?? [])
        .filter((e) => e.seq > seq)
        .map((e) => ({ ...e }));
    },
    async publish(id, message) {
      const text = JSON.stringify(message);
      // Delivered later, as over a network: never within the publisher's own call.
      setImmediate(() => {
        for (const l of listeners.get(id) ?? []) l(JSON.parse(text) as SessionBusMessage);
      });
    },
    async subscribe(id, listener) {
      let channel = listeners.get(id);
      if (!channel) {
        channel = new Set();
        listeners.set(id, channel);
      }
      const own = channel;
      own.add(listener);
      return async () => {
        own.delete(listener);
        if (own.size === 0) listeners.delete(id);
      };
    },
    async heartbeat(replica, ttlMs) {
      set(`r:${replica}`, true, ttlMs);
    },
    async isAlive(replica) {
      return get(`r:${replica}`) === true;
    },
    async ping() {},
    async close() {
      // The data stays (a store may be used again); only the timer goes.
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
    },
  };
  return store;
}

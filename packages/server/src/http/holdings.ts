import type { IncomingMessage, ServerResponse } from 'node:http';

/** The caps a handler keeps on what clients hold open (see `StreamableHttpOptions`). */
export interface HoldingLimits {
  maxSessionsPerClient: number;
  maxStreamsPerSession: number;
  maxStreams: number;
  maxListenStreams: number;
  maxListenStreamsPerClient: number;
  maxListenBytes: number;
  maxListenBytesPerClient: number;
}

/** A refusal: 429 when the client is over its own share, 503 when the server is full. */
export interface Refusal {
  status: 429 | 503;
  message: string;
}

/** Counts per key; a key at 0 is removed. */
class Tally {
  private readonly counts = new Map<string, number>();
  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }
  add(key: string, n: number): void {
    const next = this.get(key) + n;
    if (next <= 0) this.counts.delete(key);
    else this.counts.set(key, next);
  }
}

/** The default client key: the remote address. */
export function remoteAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** Answers after reading the body away (unbuffered), so that the client reads the refusal. */
export function refuseAfterDrain(req: IncomingMessage, send: () => void): void {
  if (req.readableEnded) {
    send();
    return;
  }
  req.on('end', send);
  req.on('error', () => {});
  req.resume();
}

/**
 * What a handler's clients hold open, counted per client key and per session: open HTTP
 * responses, 2025 sessions, 2026-07-28 listen streams and the request bytes they keep. Each
 * hold is released when its response closes (or, for a session, when it ends).
 */
export class Holdings {
  streams = 0;
  listenStreams = 0;
  listenBytes = 0;
  private readonly sessionStreams = new Tally();
  private readonly sessionsByClient = new Tally();
  private readonly listensByClient = new Tally();
  private readonly listenBytesByClient = new Tally();

  constructor(private readonly limits: HoldingLimits) {}

  /** Any request, before it is read: the handler's total of open responses. */
  streamRefusal(): Refusal | undefined {
    if (this.streams < this.limits.maxStreams) return undefined;
    return {
      status: 503,
      message: `Service Unavailable: ${this.limits.maxStreams} requests or streams are open`,
    };
  }

  /** Counts `res` (and, for a session's request, against that session) until it closes. */
  holdStream(res: ServerResponse, sessionId: string | undefined): void {
    this.streams++;
    if (sessionId !== undefined) this.sessionStreams.add(sessionId, 1);
    res.on('close', () => {
      this.streams--;
      if (sessionId !== undefined) this.sessionStreams.add(sessionId, -1);
    });
  }

  /** A request of a session whose open responses (this one included) are over the cap. */
  sessionStreamRefusal(sessionId: string): Refusal | undefined {
    const max = this.limits.maxStreamsPerSession;
    if (this.sessionStreams.get(sessionId) <= max) return undefined;
    return {
      status: 429,
      message: `Too Many Requests: this session has ${max} requests or streams open`,
    };
  }

  /** A new session for `key`. */
  sessionRefusal(key: string): Refusal | undefined {
    const max = this.limits.maxSessionsPerClient;
    if (this.sessionsByClient.get(key) < max) return undefined;
    return {
      status: 429,
      message: `Too Many Requests: this client holds ${max} sessions, the most one client may; end one (DELETE) or wait for one to expire`,
    };
  }

  /** Counts a session of `key`; the returned function releases it. */
  holdSession(key: string): () => void {
    this.sessionsByClient.add(key, 1);
    return () => this.sessionsByClient.add(key, -1);
  }

  /** A listen stream of `bytes` request bytes from `key`. */
  listenRefusal(key: string, bytes: number): Refusal | undefined {
    const l = this.limits;
    if (this.listensByClient.get(key) >= l.maxListenStreamsPerClient)
      return {
        status: 429,
        message: `Too Many Requests: this client holds ${l.maxListenStreamsPerClient} subscriptions/listen streams, the most one client may`,
      };
    if (this.listenBytesByClient.get(key) + bytes > l.maxListenBytesPerClient)
      return {
        status: 429,
        message: `Too Many Requests: this client's subscriptions/listen streams would hold over ${l.maxListenBytesPerClient} request bytes, the most one client may`,
      };
    if (this.listenStreams >= l.maxListenStreams)
      return {
        status: 503,
        message: `Service Unavailable: ${l.maxListenStreams} subscriptions/listen streams are open`,
      };
    if (this.listenBytes + bytes > l.maxListenBytes)
      return {
        status: 503,
        message: `Service Unavailable: the open subscriptions/listen streams would hold over ${l.maxListenBytes} request bytes`,
      };
    return undefined;
  }

  /** Counts a listen stream of `key` holding `bytes` until `res` closes. */
  holdListen(key: string, bytes: number, res: ServerResponse): void {
    this.listenStreams++;
    this.listenBytes += bytes;
    this.listensByClient.add(key, 1);
    this.listenBytesByClient.add(key, bytes);
    res.on('close', () => {
      this.listenStreams--;
      this.listenBytes -= bytes;
      this.listensByClient.add(key, -1);
      this.listenBytesByClient.add(key, -bytes);
    });
  }
}

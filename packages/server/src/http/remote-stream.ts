import type { ServerResponse } from 'node:http';
import type { ParsedEventId } from './event-id.js';
import type { SharedSessionOptions } from './legacy-session-transport.js';
import type { SessionBusMessage, StoredEvent, StreamOwner } from './session-store.js';
import { sendJsonError, sseEvent, startSse } from './sse.js';

/**
 * How long a shared POST stream's owner and log stay in the store once its last event is
 * kept, in ms (not extended while the session is used): a client whose connection broke
 * resumes within seconds (the SDK clients' longest reconnection delay is 30 s), and a busy
 * session does not keep every call's log for its lifetime.
 */
export const endedStreamTtlMs = 60_000;

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * One session's questions to the owners of streams it resumes (`probe` on the bus) and
 * their answers (`held`): a resumption whose owner only the client's `Last-Event-ID` names
 * waits on nothing until that owner says it still answers the stream.
 */
export class OwnerProbes {
  /** Resumptions waiting for an owner's answer, by `<replica>#<stream>`. */
  private readonly waiting = new Map<string, Set<(held: boolean) => void>>();

  /** An owner's answer, from the bus. */
  heard(message: SessionBusMessage & { kind: 'held' }): void {
    for (const heard of this.waiting.get(`${message.replica}#${message.stream}`) ?? [])
      heard(message.held === true);
  }

  /**
   * Whether `owner` still answers `stream` of `sessionId`: asked over the session's bus,
   * again every `ownerCheckMs` while it is alive and silent, three times at most; silence
   * counts as no (every replica answering a stream of a session listens to its bus).
   * `dead`: its heartbeat is gone (the request is then answered with an error naming it).
   */
  async ask(
    sessionId: string,
    owner: StreamOwner,
    stream: number,
    shared: SharedSessionOptions,
    stopped: () => boolean,
  ): Promise<boolean | 'dead'> {
    // A stream of this replica that it neither holds nor remembers is answered nowhere.
    if (owner.replica === shared.replica) return false;
    const key = `${owner.replica}#${stream}`;
    let waiting = this.waiting.get(key);
    if (!waiting) {
      waiting = new Set();
      this.waiting.set(key, waiting);
    }
    let heard: (held: boolean) => void = () => {};
    const answered = new Promise<boolean>((resolve) => {
      heard = resolve;
    });
    waiting.add(heard);
    try {
      for (let attempt = 0; attempt < 3 && !stopped(); attempt++) {
        if (!(await shared.store.isAlive(owner.replica))) return 'dead';
        await shared.store.publish(sessionId, {
          kind: 'probe',
          replica: owner.replica,
          stream,
          requestId: owner.requestId,
        });
        let timer: ReturnType<typeof setTimeout> | undefined;
        const held = await Promise.race([
          answered,
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), shared.ownerCheckMs);
          }),
        ]);
        clearTimeout(timer);
        if (held !== undefined) return held;
      }
      return false;
    } finally {
      waiting.delete(heard);
      if (waiting.size === 0) this.waiting.delete(key);
    }
  }
}

/** What a remote resumption needs of its session. */
export interface RemoteStreamContext {
  sessionId: string;
  shared: SharedSessionOptions;
  /** The bound of a stream's log (`maxBufferedEvents`). */
  maxEvents: number;
  /** Resumptions open in this session: each is ended when the session closes. */
  tails: Set<() => void>;
  probes: OwnerProbes;
}

/**
 * Resumes a POST stream that another replica answers (or answered): its kept events from
 * the store, then the ones it keeps while this stream is open, until the final one. Its
 * owner comes from the client's `Last-Event-ID` (or, for a stream whose owner was too long
 * for its ids, from the store); one named by the id alone is asked whether it still answers
 * the stream before anything waits on it. When the owner stops before the final event, the
 * request is answered here with an error saying so.
 */
export async function resumeRemote(
  context: RemoteStreamContext,
  id: ParsedEventId,
  lastEventId: string,
  res: ServerResponse,
): Promise<void> {
  const { sessionId, shared, tails } = context;
  const { store } = shared;
  const { stream: streamId, seq: after, tag } = id;
  let last = after;
  let done = false;
  let early: StoredEvent[] | undefined = [];
  let stop: (() => Promise<void>) | undefined;
  let check: ReturnType<typeof setInterval> | undefined;
  const finish = (): void => {
    if (done) return;
    done = true;
    tails.delete(finish);
    if (check) clearInterval(check);
    void stop?.().catch((e: unknown) => shared.onerror(asError(e)));
    res.end();
  };
  const emit = (e: StoredEvent): void => {
    if (done || e.seq <= last) return;
    last = e.seq;
    res.write(sseEvent(e.data, `${e.stream}_${e.seq}${tag}`));
    if (e.final) finish();
  };
  const noSuchStream = (): void => {
    sendJsonError(
      res,
      404,
      -32000,
      `Cannot resume from Last-Event-ID ${JSON.stringify(lastEventId)}: no such stream in this session`,
    );
    finish();
  };
  const ended = (events: readonly StoredEvent[] | undefined) =>
    events?.some((e) => e.final) === true;
  try {
    const owner = id.owner ?? (await store.streamOwner(sessionId, streamId));
    if (!owner) {
      noSuchStream();
      return;
    }
    tails.add(finish);
    res.on('close', finish);
    // Listening first, then reading: nothing kept in between is missed (seq sorts out doubles).
    stop = await store.subscribe(`${sessionId}#${streamId}`, (message) => {
      if (message.kind !== 'event') return;
      if (early) early.push(message.event);
      else emit(message.event);
    });
    // Every kept event (seqs start at 1): what came before `after` tells a gap or an end.
    let all = await store.eventsAfter(sessionId, streamId, 0);
    if (done) return;
    if (id.owner && !ended(all) && !ended(early)) {
      // The client's id alone names the owner: it must say that it answers this stream of
      // this session; a forged or stale id is not waited on.
      const answer = await context.probes.ask(sessionId, id.owner, streamId, shared, () => done);
      if (done) return;
      if (answer === false) {
        // Its last event, if it came meanwhile, was kept before its answer was published.
        all = await store.eventsAfter(sessionId, streamId, 0);
        if (done) return;
        if (!ended(all) && !ended(early)) {
          noSuchStream();
          return;
        }
      }
    }
    const refusal = resumeRefusal(all, after, lastEventId);
    if (refusal) {
      sendJsonError(res, refusal.status, -32000, refusal.message);
      finish();
      return;
    }
    const kept = all.filter((e) => e.seq > after);
    const pending = [...kept, ...(early ?? [])].sort((a, b) => a.seq - b.seq);
    early = undefined;
    // The head and what is replayed go out in one write (see startSse).
    res.cork();
    startSse(res, { 'mcp-session-id': sessionId });
    for (const e of pending) emit(e);
    res.uncork();
    if (done) return;
    const ownerGone = async (): Promise<void> => {
      if (done || (await store.isAlive(owner.replica)) || done) return;
      // Whatever it kept before it stopped was sent on; nothing more can come.
      for (const e of await store.eventsAfter(sessionId, streamId, last)) emit(e);
      if (done) return;
      const answer = {
        jsonrpc: '2.0',
        id: owner.requestId,
        error: {
          code: -32603,
          message: `The gateway replica that was answering this request (${owner.replica}) stopped before it answered; the request may or may not have taken effect`,
        },
      };
      // Kept as the stream's last event: a client that resumes again hears that it ended.
      const event = {
        stream: streamId,
        seq: last + 1,
        prev: last,
        data: JSON.stringify(answer),
        final: true,
      };
      await store
        .appendEvent(
          sessionId,
          event,
          shared.ttlMs,
          context.maxEvents,
          Math.min(endedStreamTtlMs, shared.ttlMs),
        )
        .catch((e: unknown) => shared.onerror(asError(e)));
      emit(event);
    };
    check = setInterval(() => {
      ownerGone().catch((e: unknown) => shared.onerror(asError(e)));
    }, shared.ownerCheckMs);
    check.unref();
  } catch (error) {
    shared.onerror(asError(error));
    if (!res.headersSent)
      sendJsonError(res, 503, -32000, 'Service Unavailable: the session store failed');
    finish();
  }
}

/**
 * Why a stream kept in the store cannot be resumed from `after`: its last event was before
 * (the answer was delivered: 404, as for a stream this replica let go of), or the events
 * right after it were trimmed from the log (410: replaying the rest would skip them).
 */
function resumeRefusal(
  all: readonly StoredEvent[],
  after: number,
  lastEventId: string,
): { status: 404 | 410; message: string } | undefined {
  if (all.some((e) => e.final && e.seq <= after))
    return {
      status: 404,
      message: `Cannot resume from Last-Event-ID ${JSON.stringify(lastEventId)}: that stream already carried its last event`,
    };
  const next = all.find((e) => e.seq > after);
  if (next?.prev !== undefined && next.prev > after)
    return {
      status: 410,
      message: `Gone: events after Last-Event-ID ${JSON.stringify(lastEventId)} were trimmed from the session store's event log (its per-stream bound); they cannot be replayed`,
    };
  return undefined;
}

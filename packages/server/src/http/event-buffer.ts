/**
 * The SSE events kept for `Last-Event-ID` resumption, bounded in bytes per session and in
 * total across the sessions of one handler. Oldest events go first when a bound is
 * reached; what a session loses that way is remembered per stream (the highest sequence
 * number evicted), so that a resumption asking for it is refused instead of replaying a
 * stream with a hole in it.
 */

/** One kept event: its stream, its sequence number in the session, its JSON text. */
export interface BufferedEvent {
  readonly stream: number;
  readonly seq: number;
  data: string;
  /** The UTF-8 length of `data` (what was sent; the text itself may take up to twice that). */
  readonly bytes: number;
  gone: boolean;
  readonly owner: SessionEventBuffer;
}

/** The accounting shared by every session of one handler. */
export class EventBufferPool {
  /** Bytes of every session's kept events. */
  bytes = 0;
  /** Kept events, oldest first, across sessions (gone ones are skipped and compacted away). */
  private queue: BufferedEvent[] = [];
  private head = 0;
  private live = 0;

  constructor(readonly maxBytes: number) {}

  /** Events kept now, across sessions. */
  get events(): number {
    return this.live;
  }

  /** Adds an event and evicts the oldest ones (any session's) until the total fits. */
  add(event: BufferedEvent): void {
    this.queue.push(event);
    this.live++;
    this.bytes += event.bytes;
    while (this.bytes > this.maxBytes && this.head < this.queue.length) {
      const oldest = this.queue[this.head++]!;
      if (!oldest.gone) oldest.owner.evict(oldest);
    }
    this.compact();
  }

  /** Called by a session when one of its events goes (delivered, evicted, or session closed). */
  released(event: BufferedEvent): void {
    this.live--;
    this.bytes -= event.bytes;
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.queue.length - this.head > 2 * this.live + 1024) {
      this.queue = this.queue.slice(this.head).filter((e) => !e.gone);
      this.head = 0;
    }
  }
}

/** One session's kept events, oldest first. */
export class SessionEventBuffer {
  bytes = 0;
  private events: BufferedEvent[] = [];
  private head = 0;
  /** Per stream: the highest sequence number evicted before it could be asked for. */
  private readonly lost = new Map<number, number>();

  private count = 0;

  constructor(
    private readonly pool: EventBufferPool,
    readonly maxBytes: number,
    readonly maxEvents: number,
  ) {}

  /** Events kept now. */
  get size(): number {
    return this.count;
  }

  /** Keeps `data` as event `seq` of `stream`, evicting this session's oldest over the bound. */
  add(stream: number, seq: number, data: string): void {
    const event: BufferedEvent = {
      stream,
      seq,
      data,
      bytes: Buffer.byteLength(data),
      gone: false,
      owner: this,
    };
    this.events.push(event);
    this.bytes += event.bytes;
    this.count++;
    // The total first (it may evict other sessions' events, or this one's), then this session's.
    this.pool.add(event);
    // The newest event stays even when it alone is over the session's bound (an answer
    // larger than the bound can still be fetched once); only the total bound may evict it.
    while (this.bytes > this.maxBytes || this.count > this.maxEvents) {
      const oldest = this.nextLive();
      if (!oldest || oldest === event) break;
      this.evict(oldest);
    }
  }

  /** The events of `stream` after `seq`, or `lost` when some of them were evicted. */
  after(stream: number, seq: number): BufferedEvent[] | 'lost' {
    const lost = this.lost.get(stream);
    if (lost !== undefined && lost > seq) return 'lost';
    const out: BufferedEvent[] = [];
    for (let i = this.head; i < this.events.length; i++) {
      const e = this.events[i]!;
      if (!e.gone && e.stream === stream && e.seq > seq) out.push(e);
    }
    return out;
  }

  /** Whether anything of `stream` is kept or was lost (a resumption of it is answerable). */
  knows(stream: number): boolean {
    if (this.lost.has(stream)) return true;
    for (let i = this.head; i < this.events.length; i++) {
      const e = this.events[i]!;
      if (!e.gone && e.stream === stream) return true;
    }
    return false;
  }

  /** The client acknowledged `stream` up to `seq` (it resumed from there): drops those. */
  acknowledge(stream: number, seq: number): void {
    this.drop((e) => e.stream === stream && e.seq <= seq);
  }

  /** `stream` was delivered to its end: nothing of it can be asked for again. */
  forget(stream: number): void {
    this.lost.delete(stream);
    this.drop((e) => e.stream === stream);
  }

  clear(): void {
    this.drop(() => true);
    this.lost.clear();
    this.events = [];
    this.head = 0;
  }

  /** Evicted for room: remembered as lost for its stream. */
  evict(event: BufferedEvent): void {
    if (event.gone) return;
    const before = this.lost.get(event.stream) ?? -1;
    if (event.seq > before) this.lost.set(event.stream, event.seq);
    this.release(event);
  }

  private release(event: BufferedEvent): void {
    event.gone = true;
    event.data = '';
    this.bytes -= event.bytes;
    this.count--;
    this.pool.released(event);
  }

  private drop(which: (e: BufferedEvent) => boolean): void {
    let kept = 0;
    for (let i = this.head; i < this.events.length; i++) {
      const e = this.events[i]!;
      if (e.gone) continue;
      if (which(e)) this.release(e);
      else kept++;
    }
    if (kept === 0 || this.events.length - this.head > 2 * kept + 64) {
      this.events = this.events.slice(this.head).filter((e) => !e.gone);
      this.head = 0;
    }
  }

  private nextLive(): BufferedEvent | undefined {
    while (this.head < this.events.length) {
      const e = this.events[this.head]!;
      if (!e.gone) return e;
      this.head++;
    }
    return undefined;
  }
}

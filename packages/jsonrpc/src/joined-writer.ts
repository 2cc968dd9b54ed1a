import { performance } from 'node:perf_hooks';
import { SENT } from './transport.js';

/**
 * The event loop's turn: libuv's count of loop iterations. Where it is not reported (a
 * runtime without `uvMetricsInfo`), the loop's idle time, which changes only when the loop
 * waited: lines of later turns that came without a wait are then joined too.
 */
function loopTurn(): number {
  const timing = performance.nodeTiming;
  return timing.uvMetricsInfo?.loopCount ?? timing.idleTime;
}

/** The part of a writable stream (a child's stdin, a process's stdout) the writer uses. */
export interface LineSink {
  write(data: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  off?(event: 'drain', listener: () => void): unknown;
}

/**
 * When a joined write leaves: `tick` at the end of the tick the first line was sent in;
 * `turn` the same, except that after a write of one line, the next lines sent in the same
 * turn of the event loop (more events of the poll that brought the first one) wait for the
 * turn's end (`setImmediate`) and leave together. A line sent in a later turn leaves at its
 * tick's end, whether or not the loop waited in between.
 */
export type JoinWrites = 'tick' | 'turn';

/**
 * The most lines one write joins. A burst of responses resolves many calls in one tick, and
 * their follow-up requests would all wait for the tick's end and leave in one write, so the
 * peer sits idle while they are made and the two processes take turns instead of running
 * side by side. Writing every fourth line at once lets the peer start on them: at 64 calls
 * in flight over stdio, 1.07× the throughput of one write per tick (median of 24 paired
 * rounds, lower quartile 1.03×) at the same CPU per call (bench/README.md, stop 44).
 */
const JOIN_AT_MOST = 4;

/**
 * Writes NDJSON lines to a stream, joining the lines sent in one tick into one write when
 * the tick ends (or at once, when `JOIN_AT_MOST` have joined): a few syscalls for a burst
 * instead of one per line, and no added latency.
 * With `turn`, lines sent one per event within one loop turn (each HTTP request a gateway
 * forwards comes in an event of its own) leave in one write at the turn's end.
 * While the stream is full, a write resolves once it has drained. Used by both ends of
 * stdio (the client's transport and the server's binding).
 */
export class JoinedWriter {
  private outgoing = '';
  private lines = 0;
  /** Whether lines of this tick already left because `JOIN_AT_MOST` had joined. */
  private joinedAtMost = false;
  private scheduled = false;
  private full = false;
  private waiters: Array<() => void> = [];
  /** `turn`: the event loop's turn (`loopTurn()`) when a write of one line left; -1 otherwise. */
  private turnOfLoneWrite = -1;
  /**
   * `turn`: the turn the pending lines were sent in. Their flush runs in that same turn (at
   * its tick's end, or its check phase), so it reuses this instead of asking libuv again:
   * `uvMetricsInfo` is a call into C++ and a new object each time.
   */
  private turnOfPending = -1;
  private readonly perTurn: boolean;

  /** `sink` gives the stream when the tick ends, or undefined when it is gone (then nothing is written). */
  constructor(
    private readonly sink: () => LineSink | undefined,
    join: JoinWrites = 'tick',
  ) {
    this.perTurn = join === 'turn';
  }

  write(line: string): Promise<void> {
    this.outgoing += line;
    if (++this.lines === JOIN_AT_MOST) {
      this.joinedAtMost = true;
      this.send();
    }
    if (!this.scheduled) {
      this.scheduled = true;
      if (this.perTurn) {
        const turn = loopTurn();
        this.turnOfPending = turn;
        if (this.turnOfLoneWrite === turn) setImmediate(this.flush);
        else process.nextTick(this.flush);
      } else process.nextTick(this.flush);
    }
    if (!this.full) return SENT;
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
    });
  }

  /**
   * The owner is closing: what was sent before still goes out when `flushPending` is true,
   * and writes waiting for the stream to drain resolve.
   */
  close(flushPending: boolean): void {
    if (flushPending) this.flush();
    else {
      this.outgoing = '';
      this.lines = 0;
    }
    this.sink()?.off?.('drain', this.release);
    this.release();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    // A lone line is one that left alone in its tick: not the rest of a burst.
    const lone = this.lines === 1 && !this.joinedAtMost;
    this.joinedAtMost = false;
    if (this.outgoing.length === 0) return;
    if (this.perTurn) this.turnOfLoneWrite = lone ? this.turnOfPending : -1;
    this.send();
  };

  /** Writes what has joined, now. */
  private send(): void {
    const data = this.outgoing;
    this.outgoing = '';
    this.lines = 0;
    const sink = this.sink();
    // Write errors arrive as the stream's 'error' event, which the owner handles.
    if (sink && !sink.write(data) && !this.full) {
      this.full = true;
      sink.once('drain', this.release);
    }
  }

  private readonly release = (): void => {
    this.full = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  };
}

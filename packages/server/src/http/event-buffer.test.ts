import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventBufferPool, SessionEventBuffer } from './event-buffer.js';

type Op =
  | { kind: 'add'; session: number; stream: number; bytes: number }
  | { kind: 'ack'; session: number; stream: number; upTo: number }
  | { kind: 'forget'; session: number; stream: number }
  | { kind: 'clear'; session: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    session: fc.nat(2),
    stream: fc.nat(3),
    bytes: fc.integer({ min: 1, max: 400 }),
  }),
  fc.record({
    kind: fc.constant('ack' as const),
    session: fc.nat(2),
    stream: fc.nat(3),
    upTo: fc.nat(60),
  }),
  fc.record({ kind: fc.constant('forget' as const), session: fc.nat(2), stream: fc.nat(3) }),
  fc.record({ kind: fc.constant('clear' as const), session: fc.nat(2) }),
);

describe('event buffers', () => {
  it('stay within their byte and count bounds, account every byte, and never replay a stream with a gap', () => {
    // A model: what was added per stream, and what the client acknowledged.
    fc.assert(
      fc.property(fc.array(op, { maxLength: 120 }), (ops) => {
        const pool = new EventBufferPool(1000);
        const sessions = [0, 1, 2].map(() => new SessionEventBuffer(pool, 500, 5));
        /** Per session and stream: every sequence number added, in order. */
        const added = sessions.map(() => new Map<number, number[]>());
        /** Per session and stream: what the client acknowledged (a resumption from there). */
        const acked = sessions.map(() => new Map<number, number>());
        let seq = 0;
        for (const o of ops) {
          const s = sessions[o.session]!;
          if (o.kind === 'add') {
            seq++;
            s.add(o.stream, seq, 'x'.repeat(o.bytes));
            const list = added[o.session]!.get(o.stream) ?? [];
            list.push(seq);
            added[o.session]!.set(o.stream, list);
          } else if (o.kind === 'ack') {
            // A client can only have received events that exist.
            const upTo = Math.min(o.upTo, seq);
            s.acknowledge(o.stream, upTo);
            const a = acked[o.session]!;
            a.set(o.stream, Math.max(a.get(o.stream) ?? 0, upTo));
          } else if (o.kind === 'forget') {
            s.forget(o.stream);
            added[o.session]!.delete(o.stream);
            acked[o.session]!.delete(o.stream);
          } else {
            s.clear();
            added[o.session]!.clear();
            acked[o.session]!.clear();
          }
          const total = sessions.reduce((n, b) => n + b.bytes, 0);
          expect(pool.bytes).toBe(total);
          expect(pool.events).toBe(sessions.reduce((n, b) => n + b.size, 0));
          expect(pool.bytes).toBeLessThanOrEqual(1000);
          for (const b of sessions) {
            // Over the session's bound only with its newest event alone.
            if (b.bytes > 500) expect(b.size).toBe(1);
            expect(b.size).toBeLessThanOrEqual(5);
          }
        }
        // A resumption either replays every later event of the stream it kept, or says 'lost'.
        for (const [i, b] of sessions.entries()) {
          for (const [stream, seqs] of added[i]!) {
            for (const from of [0, ...seqs]) {
              const got = b.after(stream, from);
              if (got === 'lost') continue;
              // Every event after `from` that the client did not acknowledge, in order.
              const upTo = Math.max(from, acked[i]!.get(stream) ?? 0);
              expect(got.map((e) => e.seq)).toEqual(seqs.filter((n) => n > upTo));
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryHeap } from './expiry-heap.js';

describe('ExpiryHeap', () => {
  it('hands out exactly the items due by now, earliest first, and keeps the rest', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }),
        fc.integer({ min: 0, max: 1000 }),
        (times, now) => {
          const heap = new ExpiryHeap();
          for (const [i, at] of times.entries()) heap.push(`k${i}`, at);
          const got: number[] = [];
          heap.popDue(now, (key) => got.push(times[Number(key.slice(1))]!));
          expect(got).toEqual(times.filter((t) => t <= now).sort((a, b) => a - b));
          expect(heap.size).toBe(times.filter((t) => t > now).length);
          const rest = times.filter((t) => t > now);
          expect(heap.next).toBe(rest.length > 0 ? Math.min(...rest) : undefined);
        },
      ),
    );
  });
});

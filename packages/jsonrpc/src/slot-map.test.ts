import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotMap } from './slot-map.js';

describe('SlotMap', () => {
  it('behaves as a Map under any sequence of set, delete and get (keys and sizes)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('set' as const),
        key: fc.integer({ min: 0, max: 6 }),
        value: fc.integer(),
      }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const slot = new SlotMap<number, number>();
        const map = new Map<number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            slot.set(o.key, o.value);
            map.set(o.key, o.value);
          } else if (o.kind === 'delete') {
            expect(slot.delete(o.key)).toBe(map.delete(o.key));
          } else {
            slot.clear();
            map.clear();
          }
          expect(slot.size).toBe(map.size);
          for (let k = 0; k <= 6; k++) expect(slot.get(k)).toBe(map.get(k));
          expect(new Map(slot.entries())).toEqual(map);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('entries() is a snapshot: deleting while walking it visits every entry once', () => {
    const slot = new SlotMap<string, number>();
    for (const [i, k] of ['a', 'b', 'c'].entries()) slot.set(k, i);
    const seen: string[] = [];
    for (const [k] of slot.entries()) {
      seen.push(k);
      slot.delete(k);
    }
    expect(seen.sort()).toEqual(['a', 'b', 'c']);
    expect(slot.size).toBe(0);
  });
});

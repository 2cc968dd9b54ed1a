import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlotMap } from './slot-map.js';

type Op<K> =
  | { kind: 'set'; key: K; value: number }
  | { kind: 'delete'; key: K }
  | { kind: 'clear' };

/** Applies one operation to both; checks the size and what `delete` says. */
function applyBoth<K>(o: Op<K>, slot: SlotMap<K, number>, map: Map<K, number>): void {
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
}

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
          applyBoth(o, slot, map);
          for (let k = 0; k <= 6; k++) expect(slot.get(k)).toBe(map.get(k));
          expect(new Map(slot.entries())).toEqual(map);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('behaves as a Map with keys that collide in its table, strings and other numbers', () => {
    // Keys 8 and 1024 apart share a slot at every table size; -1, 2 ** 32 and 1.5 never go in it.
    const keys = [
      0,
      1,
      7,
      8,
      9,
      16,
      63,
      64,
      1024,
      1025,
      2048,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      -1,
      1.5,
    ];
    const key = fc.oneof(
      fc.constantFrom<number | string>(...keys, '1', 'a'),
      fc.nat({ max: 3000 }),
    );
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const slot = new SlotMap<number | string, number>();
        const map = new Map<number | string, number>();
        for (const o of ops) applyBoth(o, slot, map);
        for (const k of [...keys, '1', 'a']) {
          expect(slot.get(k)).toBe(map.get(k));
          expect(slot.has(k)).toBe(map.has(k));
        }
        expect(new Map(slot.entries())).toEqual(map);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps up to 1024 increasing ids open at once in its table, set and deleted in turn', () => {
    const slot = new SlotMap<number, number>();
    for (let id = 1; id <= 5000; id++) {
      slot.set(id, id * 2);
      if (id > 1000) expect(slot.delete(id - 1000)).toBe(true);
    }
    expect(slot.size).toBe(1000);
    expect(slot.get(4001)).toBe(8002);
    expect(slot.get(4000)).toBeUndefined();
    expect(slot.entries().map(([k]) => k)).toEqual(
      Array.from({ length: 1000 }, (_, i) => 4001 + i),
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

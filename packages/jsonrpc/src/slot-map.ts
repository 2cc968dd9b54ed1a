/**
 * A Map for JSON-RPC ids (and other keys that are mostly small, increasing integers) whose
 * storage does not churn. A V8 `Map` never reuses the slot of a deleted entry: under a
 * steady stream of set/delete (a call in, a call out) it reallocates its hash table every
 * few dozen entries, and with many requests open that table is alive at every scavenge
 * (about 230 bytes a forwarded call kept past a scavenge across the gateway's maps, measured
 * with the sampling heap profiler at 64 in flight), and it shrinks and grows again as the
 * load goes down and up.
 *
 * Unsigned 32-bit integer keys live in a direct-mapped table (slot `key & mask`), made on
 * the first such key with 8 slots and doubled, up to `MAX_TABLE` slots, when a key finds its
 * slot taken while the table is at least half full; a key whose slot is taken otherwise (an
 * old request still open) and every other key (strings) go to an ordinary `Map`. A table
 * slot freed is reused in place: no allocation per entry. An idle map holds no table.
 */
const FIRST_TABLE = 8;
/** The table's largest size (slots): 16 KB of keys and values on a 64-bit heap. */
const MAX_TABLE = 1024;

export class SlotMap<K, V> {
  /** The table's keys (undefined: a free slot) and values, or none yet. */
  private keys: Array<K | undefined> | undefined;
  private values: Array<V | undefined> | undefined;
  private mask = 0;
  /** How many entries the table holds. */
  private inTable = 0;
  private readonly rest = new Map<K, V>();

  get size(): number {
    return this.rest.size + this.inTable;
  }

  get(key: K): V | undefined {
    const keys = this.keys;
    if (keys !== undefined && typeof key === 'number') {
      const at = key & this.mask;
      if (keys[at] === key) return this.values![at];
    }
    return this.rest.size === 0 ? undefined : this.rest.get(key);
  }

  has(key: K): boolean {
    const keys = this.keys;
    if (keys !== undefined && typeof key === 'number' && keys[key & this.mask] === key) return true;
    return this.rest.size !== 0 && this.rest.has(key);
  }

  set(key: K, value: V): void {
    if (typeof key !== 'number' || key >>> 0 !== key) {
      this.rest.set(key, value);
      return;
    }
    if (this.keys === undefined) this.makeTable(FIRST_TABLE);
    let at = key & this.mask;
    const there = this.keys![at];
    if (there === key) {
      this.values![at] = value;
      return;
    }
    // A key already kept in the Map (its slot was taken when it came) stays there.
    if (this.rest.size !== 0 && this.rest.has(key)) {
      this.rest.set(key, value);
      return;
    }
    if (
      there !== undefined &&
      this.keys!.length < MAX_TABLE &&
      this.inTable * 2 >= this.keys!.length
    ) {
      this.makeTable(this.keys!.length * 2);
      at = key & this.mask;
    }
    if (this.keys![at] === undefined) {
      this.keys![at] = key;
      this.values![at] = value;
      this.inTable++;
      return;
    }
    this.rest.set(key, value);
  }

  delete(key: K): boolean {
    const keys = this.keys;
    if (keys !== undefined && typeof key === 'number') {
      const at = key & this.mask;
      if (keys[at] === key) {
        keys[at] = undefined;
        this.values![at] = undefined;
        this.inTable--;
        return true;
      }
    }
    return this.rest.size !== 0 && this.rest.delete(key);
  }

  /** Empties the map and lets its table go. */
  clear(): void {
    this.keys = undefined;
    this.values = undefined;
    this.mask = 0;
    this.inTable = 0;
    this.rest.clear();
  }

  /**
   * A snapshot of the entries: safe to change the map while walking it. The table's entries
   * come first, by key (for increasing ids, the order they were set in), then the others in
   * the order they were set.
   */
  entries(): Array<[K, V]> {
    const all: Array<[K, V]> = [];
    const keys = this.keys;
    if (keys !== undefined && this.inTable !== 0) {
      for (let at = 0; at < keys.length; at++)
        if (keys[at] !== undefined) all.push([keys[at] as K, this.values![at] as V]);
      all.sort((x, y) => (x[0] as number) - (y[0] as number));
    }
    for (const entry of this.rest) all.push(entry);
    return all;
  }

  /** A table of `slots` (a power of two) with the current table's entries moved into it. */
  private makeTable(slots: number): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const keys = new Array<K | undefined>(slots).fill(undefined);
    const values = new Array<V | undefined>(slots).fill(undefined);
    const mask = slots - 1;
    // Doubling maps distinct old slots to distinct new ones: nothing collides.
    if (oldKeys !== undefined)
      for (let at = 0; at < oldKeys.length; at++) {
        const key = oldKeys[at];
        if (key === undefined) continue;
        const to = (key as number) & mask;
        keys[to] = key;
        values[to] = oldValues![at];
      }
    this.keys = keys;
    this.values = values;
    this.mask = mask;
  }
}

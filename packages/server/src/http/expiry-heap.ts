/**
 * Keys by the time they are due to expire, earliest first (a binary min-heap). A key is
 * pushed again each time its expiry changes; the caller skips an item whose key was since
 * extended or deleted, so nothing here is ever updated in place.
 */
export class ExpiryHeap {
  private readonly items: Array<{ key: string; at: number }> = [];

  /** Items held (stale ones included until they are due). */
  get size(): number {
    return this.items.length;
  }

  /** When the earliest item is due, if any. */
  get next(): number | undefined {
    return this.items[0]?.at;
  }

  push(key: string, at: number): void {
    const items = this.items;
    items.push({ key, at });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent]!.at <= at) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** Removes every item due by `now`, earliest first, handing each key to `due`. */
  popDue(now: number, due: (key: string) => void): void {
    const items = this.items;
    while (items.length > 0 && items[0]!.at <= now) {
      const top = items[0]!;
      const last = items.pop()!;
      if (items.length > 0) {
        items[0] = last;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          const r = l + 1;
          let least = i;
          if (l < items.length && items[l]!.at < items[least]!.at) least = l;
          if (r < items.length && items[r]!.at < items[least]!.at) least = r;
          if (least === i) break;
          [items[i], items[least]] = [items[least]!, items[i]!];
          i = least;
        }
      }
      due(top.key);
    }
  }
}

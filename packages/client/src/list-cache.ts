/**
 * `list*` results kept until they expire or the server says they changed. A generation
 * per list tells a fetch that started before a change not to store its stale answer.
 */
export class ListCache {
  private readonly entries = new Map<string, { items: unknown[]; expires: number }>();
  private readonly generations = new Map<string, number>();

  /** The list's items while fresh. */
  get<T>(list: string): T[] | undefined {
    const entry = this.entries.get(list);
    if (!entry) return undefined;
    if (entry.expires <= Date.now()) {
      this.entries.delete(list);
      return undefined;
    }
    return entry.items as T[];
  }

  /** Taken before a fetch, handed back to `set`. */
  generation(list: string): number {
    return this.generations.get(list) ?? 0;
  }

  /** Keeps `items` until `expires` (ms since the epoch), unless the list changed meanwhile. */
  set(list: string, items: unknown[], expires: number, generation: number): void {
    if (this.generation(list) !== generation || expires <= Date.now()) return;
    this.entries.set(list, { items, expires });
  }

  /** The list changed on the server. */
  invalidate(list: string): void {
    this.entries.delete(list);
    this.generations.set(list, this.generation(list) + 1);
  }
}

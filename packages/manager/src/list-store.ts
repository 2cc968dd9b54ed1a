import type { Prompt, Resource, ResourceTemplate, Tool } from '@mcpkit/protocol';

export interface ServerLists {
  tools?: Tool[];
  prompts?: Prompt[];
  resources?: Resource[];
  templates?: ResourceTemplate[];
}

/** Per-server lists, least recently used servers dropped first. */
export class ListStore {
  private readonly entries = new Map<string, ServerLists>();

  constructor(private readonly maxServers: number) {}

  get(server: string): ServerLists | undefined {
    const entry = this.entries.get(server);
    if (entry) {
      this.entries.delete(server);
      this.entries.set(server, entry);
    }
    return entry;
  }

  set<K extends keyof ServerLists>(server: string, key: K, value: ServerLists[K]): void {
    const entry = this.entries.get(server) ?? {};
    this.entries.delete(server);
    entry[key] = value;
    this.entries.set(server, entry);
    while (this.entries.size > Math.max(1, this.maxServers)) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  drop(server: string, key?: keyof ServerLists): void {
    if (key === undefined) this.entries.delete(server);
    else delete this.entries.get(server)?.[key];
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Added, removed and changed items between two lists, by `key`. */
export function diffLists<T>(
  before: readonly T[],
  after: readonly T[],
  key: (item: T) => string,
  same: (a: T, b: T) => boolean,
): { added: T[]; removed: T[]; changed: T[] } {
  const old = new Map(before.map((item) => [key(item), item]));
  const added: T[] = [];
  const changed: T[] = [];
  for (const item of after) {
    const previous = old.get(key(item));
    if (previous === undefined) added.push(item);
    else if (!same(previous, item)) changed.push(item);
    old.delete(key(item));
  }
  return { added, removed: [...old.values()], changed };
}

import type { Attributes } from '@opentelemetry/api';

/**
 * How many span names, and how many metric attribute sets, one set of hooks keeps. Past
 * that (a host calling thousands of distinct tools), they are built per call as before:
 * the caches stay bounded whatever names a caller or a server brings.
 */
const MAX_KEPT = 512;

/**
 * Span names `{method} {target}` for `tools/call` and `prompts/get`, made once per target
 * instead of a new string per call.
 */
export class SpanNames {
  private readonly tools = new Map<string, string>();
  private readonly prompts = new Map<string, string>();

  /** The span name of a request whose target (tool or prompt) is `target`. */
  of(method: string, target: string | undefined): string {
    if (target === undefined) return method;
    const names =
      method === 'tools/call' ? this.tools : method === 'prompts/get' ? this.prompts : undefined;
    let name = names?.get(target);
    if (name !== undefined) return name;
    name = `${method} ${target}`;
    if (names !== undefined && names.size < MAX_KEPT) names.set(target, name);
    return name;
  }
}

type Level = Map<unknown, Level | Attributes>;

/**
 * Metric attribute sets, one frozen object per distinct tuple of values: a duration
 * recorded for the same (method, target, outcome, endpoint) as before is given the same
 * object, not a new one per call. A tree of maps, one level per value, so finding a set
 * allocates nothing.
 */
export class AttributeSets {
  private readonly root: Level = new Map();
  private kept = 0;

  /**
   * The set kept for `values` (in a fixed order per caller; a scratch array the caller
   * refills, so looking up allocates nothing), or `undefined` (the caller builds one).
   */
  find(values: readonly unknown[]): Attributes | undefined {
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      const next = level.get(values[i]) as Level | undefined;
      if (next === undefined) return undefined;
      level = next;
    }
    return level.get(values[last]) as Attributes | undefined;
  }

  /** Keeps `set` for `values` (when there is room) and returns it. */
  keep(values: readonly unknown[], set: Attributes): Attributes {
    if (this.kept >= MAX_KEPT) return set;
    Object.freeze(set);
    let level = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]) as Level | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(values[i], next);
      }
      level = next;
    }
    level.set(values[last], set);
    this.kept++;
    return set;
  }
}

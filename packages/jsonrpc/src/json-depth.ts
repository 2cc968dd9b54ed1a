import { describeDroppedLine } from './dropped-line.js';
import { JsonTooDeepError } from './errors.js';
import { checkCount } from './option-checks.js';

/**
 * 256 levels of arrays and objects, the envelope included. Real messages stay far below:
 * a tool list is 4 levels before its first schema, and a schema nested 40 objects deep
 * (rarer than rare) takes 80 more. Above it, recursive walks (ours, a host's, a
 * validator's, `JSON.stringify`) start to be at risk: V8's own stringify overflows near
 * 5,000 levels, and a recursive function called deep in a host's stack far sooner.
 */
export const DEFAULT_MAX_JSON_DEPTH = 256;

/** `maxJsonDepth`: a whole number of levels, at least 1. `undefined` passes through. */
export function checkMaxJsonDepth<T extends number | undefined>(owner: string, value: T): T {
  return checkCount(owner, 'maxJsonDepth', value);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * How deep arrays and objects nest in JSON text (0 for a scalar), in one pass with no
 * recursion and no allocation: string literals are skipped whole (`indexOf` to the next
 * quote not escaped), so brackets inside strings do not count. Stops as soon as the depth
 * passes `stopAbove` and returns that depth. Text that is not JSON gives a number too
 * (parsing it is what tells it is not JSON).
 */
export function jsonTextDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the first one preceded by an even number of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        if ((slashes & 1) === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return max;
      i = end;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return max;
}

/**
 * How deep arrays and objects nest in a value (0 for anything else), walked with an
 * explicit stack: any depth, no `RangeError`. Stops once the depth passes `stopAbove` and
 * returns that depth. A value shared by two parents is walked again only when reached
 * deeper; a cycle therefore counts as deeper than any `stopAbove`.
 */
export function jsonValueDepth(value: unknown, stopAbove: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  const reached = new Map<object, number>();
  const nodes: object[] = [value];
  const depths: number[] = [1];
  let max = 0;
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    const before = reached.get(node);
    if (before !== undefined && before >= depth) continue;
    reached.set(node, depth);
    if (depth > max) {
      max = depth;
      if (max > stopAbove) return max;
    }
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return max;
}

/**
 * Throws `JsonTooDeepError` when `value` nests deeper than `maxDepth`: the guard a walk
 * over data from a peer calls first, so that deep data fails with a typed error, not a
 * `RangeError` from the middle of a recursion. `where` names the data (and the server).
 */
export function assertJsonDepth(value: unknown, maxDepth: number, where: string): void {
  const depth = jsonValueDepth(value, maxDepth);
  if (depth > maxDepth) {
    throw new JsonTooDeepError(
      `${where} nests deeper than the ${maxDepth}-level limit`,
      maxDepth,
      depth,
    );
  }
}

/**
 * The ingress check for one message's text: `undefined` when it nests at most `maxDepth`
 * levels, else the error to report, with the message's id and kind read from its first and
 * last bytes (as for a message dropped for its size), so that the peer can fail the
 * request it answers or answer the request it is. Text shorter than `2 × maxDepth + 2`
 * characters cannot nest deeper than the limit and costs one comparison.
 */
export function checkJsonTextDepth(
  text: string,
  maxDepth: number,
  where?: string,
): JsonTooDeepError | undefined {
  if (text.length <= 2 * maxDepth + 1) return undefined;
  if (jsonTextDepth(text, maxDepth) <= maxDepth) return undefined;
  // The failing path only: the whole text once more, for the depth it really has.
  const depth = jsonTextDepth(text);
  const { id, kind } = describeDroppedLine(text.slice(0, 256), text.slice(-256));
  return new JsonTooDeepError(
    `${where ? `${where}: ` : ''}a message nesting ${depth} levels deep, over the ${maxDepth}-level limit, was dropped`,
    maxDepth,
    depth,
    { id, kind },
  );
}

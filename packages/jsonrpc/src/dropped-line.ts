/**
 * What kind of JSON-RPC message a dropped line is, as far as its first and last bytes tell
 * (a notification is never certain: a request's id may hide in the unread middle).
 */
export type MessageKind = 'request' | 'response';

/** What the first and last bytes of a line too large to read say about it. */
export interface DroppedLine {
  /** The message's own (top-level) id, when one of the windows shows it. */
  id: string | number | null;
  /** A request (a method and an id seen) or a response (a result or error seen); undefined otherwise. */
  kind: MessageKind | undefined;
}

/** A JSON string or number literal as the id; anything else is no id. */
function idLiteral(text: string): string | number | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
      ? value
      : null;
  } catch {
    return null;
  }
}

/**
 * Reads the top-level keys of an object's first bytes (a window that may end anywhere):
 * only members of the outermost object count, so an `"id"` inside `params` is not the
 * message's id, and a `"method"` inside a result does not make a response a request.
 */
function scanHead(head: string): {
  id: string | number | null;
  method: boolean;
  answer: boolean;
} {
  let id: string | number | null = null;
  let method = false;
  let answer = false;
  let depth = 0;
  let i = head.indexOf('{');
  if (i === -1) return { id, method, answer };
  /** The key whose value comes next at depth 1, once its colon is seen. */
  let key: string | undefined;
  let expectKey = false;
  for (; i < head.length; i++) {
    const c = head[i];
    if (c === '"') {
      let end = i + 1;
      while (end < head.length && head[end] !== '"') end += head[end] === '\\' ? 2 : 1;
      if (end >= head.length) break;
      const text = head.slice(i, end + 1);
      if (depth === 1 && expectKey) {
        key = idLiteral(text) as string | undefined;
        expectKey = false;
      } else if (depth === 1 && key === 'id') {
        id = idLiteral(text);
        key = undefined;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      if (depth === 1 && key !== undefined) {
        if (key === 'result' || key === 'error') answer = true;
        key = undefined;
      }
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth <= 0) break;
    } else if (depth === 1 && c === ',') {
      expectKey = true;
      key = undefined;
    } else if (depth === 1 && c === ':') {
      if (key === 'method') method = true;
      if (key === 'result' || key === 'error') answer = true;
    } else if (depth === 1 && key === 'id' && /[-0-9]/.test(c!)) {
      let end = i;
      while (end < head.length && /[-+.eE0-9]/.test(head[end]!)) end++;
      // A number cut off by the window's end is not read.
      if (end < head.length) id = idLiteral(head.slice(i, end));
      key = undefined;
      i = end - 1;
    }
  }
  return { id, method, answer };
}

/** An id that is the outermost object's last member: `…,"id":5}` at the very end. */
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * Describes a line dropped for its size from its first and last bytes: its id, and whether
 * it is a request or a response. A peer answers a dropped request with an
 * error and fails the request a dropped response answers, and must not mix the two up:
 * ids are chosen by each side, so a request's id can equal one of our own pending ones.
 */
export function describeDroppedLine(head: string, tail: string): DroppedLine {
  const scanned = scanHead(head);
  let id = scanned.id;
  if (id === null) {
    const match = TAIL_ID.exec(tail);
    if (match) id = idLiteral(match[1]!);
  }
  const kind: MessageKind | undefined = scanned.method
    ? id === null
      ? undefined
      : 'request'
    : scanned.answer
      ? 'response'
      : undefined;
  return { id, kind };
}

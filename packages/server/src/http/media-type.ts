/** RFC 9110 `token` characters: what a type or a subtype is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * The answers for header values seen before: a client sends the same `Content-Type` and
 * `Accept` on every request, and parsing them cost about 3 µs of a forwarded call. Bounded:
 * at most MEMO_ENTRIES values of at most MEMO_VALUE_CHARS characters each, per map.
 */
const MEMO_ENTRIES = 64;
const MEMO_VALUE_CHARS = 256;
const contentTypes = new Map<string, string | undefined>();
const accepted = new Map<string, Map<string, boolean>>();
/**
 * The last value each of `mediaTypeOf` and `streamAccepts` answered (kept as the memos keep
 * values: at most MEMO_VALUE_CHARS long), and its answer: each request's header is a new
 * string, and comparing it with the last one costs less than the hash a map lookup computes
 * for it first.
 */
let lastContentType: string | undefined;
let lastMediaType: string | undefined;
let lastAccept: string | undefined;
let lastAcceptBits = 0;

function remember<T>(memo: Map<string, T>, value: string, answer: T): T {
  if (value.length > MEMO_VALUE_CHARS) return answer;
  if (memo.size >= MEMO_ENTRIES) memo.clear();
  memo.set(value, answer);
  return answer;
}

/**
 * The media type of a `Content-Type` value (RFC 9110 §8.3.1): `type/subtype`, lowercased,
 * without its parameters; undefined when the value is not one. Only what stands before the
 * first `;` counts, so `text/plain;charset=application/json` is `text/plain`.
 */
export function mediaTypeOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === lastContentType) return lastMediaType;
  let known = contentTypes.get(value);
  if (known === undefined && !contentTypes.has(value))
    known = remember(contentTypes, value, parseMediaType(value));
  if (value.length <= MEMO_VALUE_CHARS) {
    lastContentType = value;
    lastMediaType = known;
  }
  return known;
}

function parseMediaType(value: string): string | undefined {
  const bare = (value.split(';', 1)[0] ?? '').trim().toLowerCase();
  const slash = bare.indexOf('/');
  if (slash === -1) return undefined;
  const type = bare.slice(0, slash);
  const subtype = bare.slice(slash + 1);
  return TOKEN.test(type) && TOKEN.test(subtype) ? `${type}/${subtype}` : undefined;
}

/**
 * Whether an `Accept` value (RFC 9110 §12.5.1) admits `type` (`type/subtype`, lowercase):
 * a range names it, or `<type>/*`, or `*∕*`, with a weight above 0. Ranges are compared
 * whole: `application/json-seq` does not admit `application/json`. A missing header names
 * nothing (false): the callers pick their default answer for it.
 */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  if (accept === undefined) return false;
  let byAccept = accepted.get(type);
  if (byAccept === undefined) {
    if (accepted.size >= MEMO_ENTRIES) accepted.clear();
    byAccept = new Map();
    accepted.set(type, byAccept);
  }
  const known = byAccept.get(accept);
  return known ?? remember(byAccept, accept, parseAccepts(accept, type));
}

/** `streamAccepts`: the value admits `text/event-stream`. */
export const ACCEPTS_SSE = 1;
/** `streamAccepts`: the value admits `application/json`. */
export const ACCEPTS_JSON = 2;
const streamAccepted = new Map<string, number>();

/**
 * What an `Accept` value admits of the two types a POST's answer can take, as
 * `ACCEPTS_SSE | ACCEPTS_JSON` bits: one lookup per request for a value seen before
 * (`acceptsMediaType`'s rules for each type).
 */
export function streamAccepts(accept: string | undefined): number {
  if (accept === undefined) return 0;
  if (accept === lastAccept) return lastAcceptBits;
  let bits = streamAccepted.get(accept);
  if (bits === undefined) {
    bits =
      (parseAccepts(accept, 'text/event-stream') ? ACCEPTS_SSE : 0) |
      (parseAccepts(accept, 'application/json') ? ACCEPTS_JSON : 0);
    remember(streamAccepted, accept, bits);
  }
  if (accept.length <= MEMO_VALUE_CHARS) {
    lastAccept = accept;
    lastAcceptBits = bits;
  }
  return bits;
}

function parseAccepts(accept: string, type: string): boolean {
  const [major] = type.split('/', 1);
  for (const range of accept.split(',')) {
    const [head = '', ...params] = range.split(';');
    const name = head.trim().toLowerCase();
    if (name !== type && name !== `${major}/*` && name !== '*/*') continue;
    const q = params
      .map((p) => p.trim().toLowerCase())
      .find((p) => p.startsWith('q='))
      ?.slice(2);
    if (q === undefined || Number(q) > 0) return true;
  }
  return false;
}

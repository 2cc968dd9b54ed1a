import type { StreamOwner } from './session-store.js';

/**
 * SSE event ids of a 2025 session: `<stream>_<seq>`, and for a POST stream of a shared
 * session `<stream>_<seq>.<replica>.<request>`, its owner carried in every id (so that
 * opening the stream writes nothing to the store): `<replica>` is the answering replica's
 * id in base64url, `<request>` the request id, an integer in decimal or `s` and a string
 * in base64url. Neither alphabet has `.`, so the parts cannot be confused. A `Last-Event-ID`
 * is the client's text: everything here is bounded and checked before it is trusted.
 */

/** A `Last-Event-ID` longer than this is not one of ours. */
export const maxEventIdLength = 256;
/** A replica id up to this many UTF-8 bytes is carried in event ids (longer: the store keeps it). */
export const maxReplicaIdBytes = 64;
/** A string request id up to this many UTF-8 bytes is carried in event ids. */
export const maxRequestIdBytes = 96;

export interface ParsedEventId {
  stream: number;
  seq: number;
  /** What follows `<stream>_<seq>`: `''`, or `.<replica>.<request>` as the client sent it. */
  tag: string;
  /** The stream's owner, when the id carries one. */
  owner?: StreamOwner;
}

const shape =
  /^(0|[1-9]\d{0,14})_(0|[1-9]\d{0,14})(?:\.([A-Za-z0-9_-]{1,86})\.(-?\d{1,16}|s[A-Za-z0-9_-]{0,128}))?$/;

/**
 * Text as base64url of its UTF-8 when that has at most `maxBytes` bytes and decodes back to
 * the same text (not so with a lone surrogate); otherwise undefined.
 */
function encode(text: string, maxBytes: number): string | undefined {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > maxBytes || bytes.toString('utf8') !== text) return undefined;
  return bytes.toString('base64url');
}

/** base64url back to UTF-8 text, only when it is the canonical encoding of valid UTF-8. */
function decode(part: string): string | undefined {
  const bytes = Buffer.from(part, 'base64url');
  if (bytes.toString('base64url') !== part) return undefined;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/** A replica's part of its streams' event ids, or undefined when the id is too long to carry. */
export function replicaTagPart(replica: string): string | undefined {
  return replica === '' ? undefined : encode(replica, maxReplicaIdBytes);
}

/**
 * The tag of a POST stream's event ids (`.<replica>.<request>`), or undefined when the
 * request id cannot be carried (a string over the bound, a number that is not a safe
 * integer): the stream's owner then goes to the store.
 */
export function ownerTag(replicaPart: string, requestId: string | number): string | undefined {
  if (typeof requestId === 'number')
    return Number.isSafeInteger(requestId) ? `.${replicaPart}.${requestId}` : undefined;
  const request = encode(requestId, maxRequestIdBytes);
  return request === undefined ? undefined : `.${replicaPart}.s${request}`;
}

/**
 * A `Last-Event-ID` as this binding writes them, or undefined for anything else (too long,
 * another shape, numbers past 15 digits or with leading zeros, a part that is not the
 * canonical encoding).
 */
export function parseEventId(id: string): ParsedEventId | undefined {
  if (id.length > maxEventIdLength) return undefined;
  const m = shape.exec(id);
  if (!m) return undefined;
  const parsed: ParsedEventId = {
    stream: Number(m[1]),
    seq: Number(m[2]),
    tag: m[3] === undefined ? '' : id.slice(m[1]!.length + m[2]!.length + 1),
  };
  if (m[3] === undefined) return parsed;
  const replica = decode(m[3]);
  if (replica === undefined || replica === '') return undefined;
  const request = m[4]!;
  let requestId: string | number;
  if (request.startsWith('s')) {
    const text = decode(request.slice(1));
    if (text === undefined) return undefined;
    requestId = text;
  } else {
    requestId = Number(request);
    // One spelling per number: no leading zeros, no `-0`.
    if (!Number.isSafeInteger(requestId) || String(requestId) !== request) return undefined;
  }
  parsed.owner = { replica, requestId };
  return parsed;
}

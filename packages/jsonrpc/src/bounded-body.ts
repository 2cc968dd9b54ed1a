import { type SseEvent, SseParser } from './sse-parser.js';

/**
 * Readers for HTTP bodies sent by a peer we do not trust: none of them keeps more than its
 * limit, and each stops reading (which cancels the body: leaving a `for await` loop early
 * destroys a Node stream, and undici then drops the connection) once it has what it needs.
 */

/** How much of an error response's body is read for the error message: 4 KiB. */
export const MAX_ERROR_BODY_BYTES = 4096;

/** A response body: Node streams, undici's `BodyReadable` and web streams all fit. */
export type BodyChunks = AsyncIterable<Uint8Array | string>;

const encoder = new TextEncoder();

function bytesOf(chunk: Uint8Array | string): Uint8Array {
  return typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
}

/**
 * The start of a body (at most `maxBytes`, decoded as UTF-8), then the body is cancelled.
 * Never throws: a body that fails mid-way gives what arrived before.
 */
export async function readBodyExcerpt(
  body: BodyChunks,
  maxBytes: number = MAX_ERROR_BODY_BYTES,
): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const bytes = bytesOf(chunk);
      const room = maxBytes - size;
      parts.push(bytes.length > room ? bytes.subarray(0, room) : bytes);
      size += Math.min(bytes.length, room);
      if (size >= maxBytes) break;
    }
  } catch {
    // What arrived before the failure is the excerpt.
  }
  return new TextDecoder().decode(join(parts, size));
}

/**
 * A whole body of at most `limitBytes`, decoded as UTF-8. The first chunk that crosses the
 * limit cancels the body and throws what `tooLarge(receivedBytes)` returns; bytes are
 * never kept past the limit.
 */
export async function readBodyLimited(
  body: BodyChunks,
  limitBytes: number,
  tooLarge: (receivedBytes: number) => Error,
): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = bytesOf(chunk);
    size += bytes.length;
    if (size > limitBytes) throw tooLarge(size);
    parts.push(bytes);
  }
  return new TextDecoder().decode(join(parts, size));
}

function join(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export interface SseStreamHandlers {
  /** The largest event accepted (UTF-8 bytes of its data). */
  maxEventBytes: number;
  onevent: (event: SseEvent) => void;
  onretry?: (ms: number) => void;
  onid?: (id: string) => void;
  /** The error thrown (and the body cancelled) when an event or line crosses the limit. */
  tooLarge: (receivedBytes: number) => Error;
}

/**
 * Reads a `text/event-stream` body to its end through a bounded `SseParser`. Resolves when
 * the body ends; rejects when it fails, or with `tooLarge(...)` as soon as an event grows
 * past `maxEventBytes` (the body is cancelled then, so the server sees the connection close).
 */
export async function readSseStream(body: BodyChunks, handlers: SseStreamHandlers): Promise<void> {
  let oversize: number | undefined;
  const parser = new SseParser({
    maxEventBytes: handlers.maxEventBytes,
    onevent: handlers.onevent,
    ...(handlers.onretry ? { onretry: handlers.onretry } : {}),
    ...(handlers.onid ? { onid: handlers.onid } : {}),
    onoversize: (bytes) => {
      oversize = bytes;
    },
  });
  for await (const chunk of body) {
    parser.push(bytesOf(chunk));
    if (oversize !== undefined) throw handlers.tooLarge(oversize);
  }
  parser.end();
}

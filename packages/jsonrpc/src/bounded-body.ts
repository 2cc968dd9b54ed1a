import { joinBytes } from './join-bytes.js';
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
/** Stateless between calls (no `stream` option): one for every body. */
const decoder = new TextDecoder();

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
  return decoder.decode(joinBytes(parts, size));
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
  if (isEmitterBody(body)) return readEmitterLimited(body, limitBytes, tooLarge);
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = bytesOf(chunk);
    size += bytes.length;
    if (size > limitBytes) throw tooLarge(size);
    parts.push(bytes);
  }
  return decoder.decode(joinBytes(parts, size));
}

/** A Node readable stream (undici's `BodyReadable` is one), read by its events. */
interface EmitterBody {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(error?: Error): unknown;
}

function isEmitterBody(body: BodyChunks): body is BodyChunks & EmitterBody {
  const b = body as Partial<EmitterBody>;
  return typeof b.on === 'function' && typeof b.destroy === 'function';
}

/**
 * `readBodyLimited` for a Node stream, by its events rather than `for await`: an async
 * iterator per body, and a promise per chunk, were a tenth of the HTTP client's CPU per call
 * for small answers. Same bound, same errors: the chunk that crosses the limit destroys the
 * body and rejects with `tooLarge`; a body closed before its end rejects.
 */
function readEmitterLimited(
  body: EmitterBody,
  limitBytes: number,
  tooLarge: (receivedBytes: number) => Error,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      parts.length = 0;
      reject(error);
    };
    body.on('data', (chunk) => {
      if (settled) return;
      const bytes = bytesOf(chunk);
      size += bytes.length;
      if (size > limitBytes) {
        fail(tooLarge(size));
        body.destroy();
        return;
      }
      parts.push(bytes);
    });
    body.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(decoder.decode(joinBytes(parts, size)));
    });
    body.on('error', fail);
    body.on('close', () => {
      if (settled) return;
      const error = new Error('the body was closed before its end');
      (error as Error & { code?: string }).code = 'ERR_STREAM_PREMATURE_CLOSE';
      fail(error);
    });
  });
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

import { describeDroppedLine } from './dropped-line.js';
import { type JsonTooDeepError, MessageTooLargeError, ParseError } from './errors.js';
import { checkJsonTextDepth, checkMaxJsonDepth, DEFAULT_MAX_JSON_DEPTH } from './json-depth.js';
import { checkMaxMessageBytes } from './option-checks.js';

/** 64 MiB: big enough for large tool results, small enough to stop a runaway peer. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface NdjsonFramerOptions {
  /** Largest single line accepted, in bytes (without the newline). */
  maxMessageBytes?: number;
  /** Deepest nesting of arrays and objects accepted in a line. Default `DEFAULT_MAX_JSON_DEPTH` (256). */
  maxJsonDepth?: number;
  /** A parsed line (any JSON value; validate it as a message separately). */
  onvalue: (value: unknown) => void;
  /** A line that is not JSON, or a line over the size or depth limit. Framing continues after it. */
  onerror: (error: ParseError | MessageTooLargeError | JsonTooDeepError) => void;
}

const NEWLINE = 0x0a;
const EXCERPT_CHARS = 200;
const ID_WINDOW_BYTES = 256;
/**
 * Splits a byte stream into newline-delimited JSON values.
 *
 * Linear in the size of the input: every byte is scanned once for a newline, and the
 * chunks of a line are joined once, when its newline arrives (no repeated
 * concatenation). A line longer than `maxMessageBytes` is reported and skipped up to its
 * newline without being buffered, so a runaway peer cannot exhaust memory. It is reported
 * as soon as it crosses the limit when its first bytes name its id (so a line that never
 * ends still fails its request at once), otherwise at its newline (its last bytes may).
 */
export class NdjsonFramer {
  readonly maxMessageBytes: number;
  readonly maxJsonDepth: number;
  private readonly onvalue: (value: unknown) => void;
  private readonly onerror: (error: ParseError | MessageTooLargeError | JsonTooDeepError) => void;
  private parts: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  private discardedHead = '';
  private discardedTail: Buffer = Buffer.alloc(0);
  private discardedBytes = 0;
  /** The skipped line was reported when it crossed the limit (its id was in its head). */
  private reportedEarly = false;

  constructor(options: NdjsonFramerOptions) {
    this.maxMessageBytes =
      checkMaxMessageBytes('NdjsonFramer', options.maxMessageBytes) ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.maxJsonDepth =
      checkMaxJsonDepth('NdjsonFramer', options.maxJsonDepth) ?? DEFAULT_MAX_JSON_DEPTH;
    this.onvalue = options.onvalue;
    this.onerror = options.onerror;
  }

  /** Bytes buffered for an incomplete line. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  push(chunk: Buffer): void {
    let start = 0;
    const length = chunk.length;
    while (start < length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.append(chunk, start, length);
        return;
      }
      if (this.pendingBytes === 0 && !this.discarding && newline - start <= this.maxMessageBytes) {
        // The common case, a whole line inside this chunk: decoded straight from the
        // chunk, without a slice or a parts array.
        if (newline > start) this.parseLine(chunk.toString('utf8', start, newline));
      } else {
        this.append(chunk, start, newline);
        this.finishLine();
      }
      start = newline + 1;
    }
  }

  /** Flushes a final line without a trailing newline (call at end of stream). */
  end(): void {
    if (this.pendingBytes > 0 || this.discarding) this.finishLine();
  }

  private append(chunk: Buffer, start: number, end: number): void {
    if (end <= start) return;
    const size = end - start;
    if (this.discarding) {
      this.discardedBytes += size;
      this.keepTail(chunk.subarray(start, end));
      return;
    }
    if (this.pendingBytes + size > this.maxMessageBytes) {
      // Keep only the first and last bytes: enough to find the message's id.
      const first = this.parts.length > 0 ? this.parts[0]! : chunk.subarray(start, end);
      this.discardedHead = first.subarray(0, ID_WINDOW_BYTES).toString('latin1');
      this.discardedBytes = this.pendingBytes + size;
      this.parts = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.discardedTail = Buffer.alloc(0);
      this.keepTail(chunk.subarray(start, end));
      // When the head names the message, fail it now: its end may be far off, or never come.
      const { id, kind } = describeDroppedLine(this.discardedHead, '');
      if (id !== null) {
        this.reportedEarly = true;
        this.onerror(
          new MessageTooLargeError(
            `a message over the ${this.maxMessageBytes}-byte limit is being skipped`,
            this.maxMessageBytes,
            { id, kind },
          ),
        );
      }
      return;
    }
    // Slices share memory with the chunk; nothing is copied until the line completes.
    this.parts.push(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end));
    this.pendingBytes += size;
  }

  private keepTail(slice: Buffer): void {
    this.discardedTail =
      slice.length >= ID_WINDOW_BYTES
        ? Buffer.from(slice.subarray(slice.length - ID_WINDOW_BYTES))
        : Buffer.concat([this.discardedTail, slice]).subarray(-ID_WINDOW_BYTES);
  }

  private finishLine(): void {
    if (this.discarding) {
      this.discarding = false;
      if (this.reportedEarly) {
        this.reportedEarly = false;
        this.discardedHead = '';
        this.discardedTail = Buffer.alloc(0);
        this.discardedBytes = 0;
        return;
      }
      const { id, kind } = describeDroppedLine(
        this.discardedHead,
        this.discardedTail.toString('latin1'),
      );
      const bytes = this.discardedBytes;
      this.discardedHead = '';
      this.discardedTail = Buffer.alloc(0);
      this.discardedBytes = 0;
      this.onerror(
        new MessageTooLargeError(
          `a ${bytes}-byte message exceeds the ${this.maxMessageBytes}-byte limit and was dropped`,
          this.maxMessageBytes,
          { id, kind },
        ),
      );
      return;
    }
    const parts = this.parts;
    const bytes = this.pendingBytes;
    this.parts = [];
    this.pendingBytes = 0;
    if (bytes === 0) return;
    this.parseLine(
      parts.length === 1
        ? parts[0]!.toString('utf8')
        : Buffer.concat(parts, bytes).toString('utf8'),
    );
  }

  private parseLine(line: string): void {
    const tooDeep = checkJsonTextDepth(line, this.maxJsonDepth);
    if (tooDeep !== undefined) {
      this.onerror(tooDeep);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      const trimmed = line.trim();
      if (trimmed.length === 0) return;
      this.onerror(
        new ParseError(
          `line is not JSON: ${JSON.stringify(trimmed.slice(0, 80))}`,
          trimmed.slice(0, EXCERPT_CHARS),
          { cause },
        ),
      );
      return;
    }
    this.onvalue(value);
  }
}

/** Serializes one message as an NDJSON line. */
export function serializeNdjson(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}

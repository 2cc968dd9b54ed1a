/**
 * A streaming `text/event-stream` parser that bounds what it keeps.
 *
 * Follows the WHATWG HTML "event stream interpretation" rules (UTF-8, one leading BOM
 * dropped, lines end in CRLF, LF or CR, `data`/`event`/`id`/`retry` fields, comments,
 * dispatch on a blank line, an unfinished event at the end is discarded). Unlike a general
 * parser it never buffers more than `maxEventBytes` (plus a small allowance for a field
 * name): an event whose data, or a line that, grows past the limit is reported through
 * `onoversize` as soon as it does, and the parser then ignores the rest of the stream —
 * the caller is expected to cancel it. A server that never ends an event cannot make us
 * keep its bytes.
 */

import { type InvalidMessageError, type JsonTooDeepError, ParseError } from './errors.js';
import { joinBytes } from './join-bytes.js';
import { checkJsonTextDepth, DEFAULT_MAX_JSON_DEPTH } from './json-depth.js';
import type { JsonRpcMessage } from './messages.js';
import { dispatchParsed } from './validate.js';

export interface SseEvent {
  /** The event type; `message` when the event named none. */
  event: string;
  /** The data lines joined with `\n`. */
  data: string;
  /** The last event ID at dispatch (persists across events, as the standard says); `''` when none. */
  id: string;
}

export interface SseParserOptions {
  /** The largest event (its data, in UTF-8 bytes) and the longest line kept. */
  maxEventBytes: number;
  /** An event with data. */
  onevent: (event: SseEvent) => void;
  /** A valid `retry` field (ASCII digits only). */
  onretry?: (ms: number) => void;
  /** An event block set the last event ID (even one without data, e.g. a priming event). */
  onid?: (id: string) => void;
  /** The limit was crossed; `bytes` is how much the event or line had reached. Called once. */
  onoversize: (bytes: number) => void;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
/** Room for a field name and separator on top of the data limit (`data: ` is 6 bytes). */
const LINE_ALLOWANCE_BYTES = 1024;
/** The data buffer's first block, kept from one event to the next. */
const FIRST_BLOCK_BYTES = 4096;
/** Blocks the data buffer adds grow with the event, up to this size. */
const MAX_BLOCK_BYTES = 1 << 20;

const decoder = new TextDecoder('utf-8');
const FIELD_DATA = [0x64, 0x61, 0x74, 0x61];
const FIELD_EVENT = [0x65, 0x76, 0x65, 0x6e, 0x74];
const FIELD_ID = [0x69, 0x64];
const FIELD_RETRY = [0x72, 0x65, 0x74, 0x72, 0x79];

/**
 * An event's data, as bytes, in blocks that this buffer owns: a data line is copied in when
 * it ends, so the chunks it arrived in are not kept, and nothing is decoded until the event
 * is dispatched (once, as the standard decodes the stream). What it holds is what was
 * counted, plus at most one block's unused tail.
 */
class DataBuffer {
  private blocks: Uint8Array[] = [];
  private used = 0;
  /** Bytes held, over all blocks. */
  size = 0;
  /**
   * The event's only data so far, still in the chunk being read (not copied): the common
   * event, one data line dispatched within its chunk, is decoded straight from the chunk.
   * `settle()` copies it in before the chunk is let go.
   */
  private view: Uint8Array | undefined;
  private viewFrom = 0;
  private viewTo = 0;

  /** Adds `bytes[from..to)`; `first` (nothing held yet) may keep it as a view until `settle()`. */
  appendRange(bytes: Uint8Array, from: number, to: number, first: boolean): void {
    if (first && this.size === 0 && this.view === undefined) {
      this.view = bytes;
      this.viewFrom = from;
      this.viewTo = to;
      return;
    }
    this.settle();
    this.append(bytes.subarray(from, to));
  }

  /** Copies a pending view into the buffer's own blocks. */
  settle(): void {
    const view = this.view;
    if (view === undefined) return;
    this.view = undefined;
    this.append(view.subarray(this.viewFrom, this.viewTo));
  }

  append(source: Uint8Array): void {
    let offset = 0;
    while (offset < source.length) {
      let block = this.blocks[this.blocks.length - 1];
      if (block === undefined || this.used === block.length) {
        const wanted = Math.min(Math.max(this.size, FIRST_BLOCK_BYTES), MAX_BLOCK_BYTES);
        block = new Uint8Array(
          Math.max(wanted, this.blocks.length === 0 ? 0 : source.length - offset),
        );
        this.blocks.push(block);
        this.used = 0;
      }
      const n = Math.min(block.length - this.used, source.length - offset);
      block.set(n === source.length ? source : source.subarray(offset, offset + n), this.used);
      this.used += n;
      offset += n;
      this.size += n;
    }
  }

  appendLf(): void {
    this.settle();
    const block = this.blocks[this.blocks.length - 1];
    if (block !== undefined && this.used < block.length) {
      block[this.used++] = LF;
      this.size++;
    } else this.append(LF_BYTES);
  }

  /** The text of the first `bytes` bytes held; then empties the buffer (keeping one small block). */
  takeText(): string {
    const view = this.view;
    if (view !== undefined) {
      this.view = undefined;
      return textOf(view, this.viewFrom, this.viewTo);
    }
    // Every block but the last is full.
    const last = this.blocks.length - 1;
    const parts = this.blocks.map((b, i) => (i === last ? b.subarray(0, this.used) : b));
    const text = this.size === 0 ? '' : decoder.decode(joinBytes(parts, this.size));
    this.drop();
    return text;
  }

  /** Empties the buffer; a first block of the usual size is kept for the next event. */
  drop(): void {
    this.view = undefined;
    const first = this.blocks[0];
    this.blocks = first !== undefined && first.length <= FIRST_BLOCK_BYTES ? [first] : [];
    this.used = 0;
    this.size = 0;
  }
}

const LF_BYTES = new Uint8Array([LF]);

/** Whether `bytes[start..end)` starts with `name` followed by `:` or the end. */
function fieldAt(bytes: Uint8Array, start: number, end: number, name: number[]): boolean {
  if (end - start < name.length) return false;
  for (let i = 0; i < name.length; i++) if (bytes[start + i] !== name[i]) return false;
  return start + name.length === end || bytes[start + name.length] === COLON;
}

/** A field's value in `bytes`, the name ending at `nameEnd`: after `:` and one optional space. */
function valueIn(bytes: Uint8Array, nameEnd: number, end: number): string {
  if (nameEnd >= end) return '';
  let from = nameEnd + 1;
  if (from < end && bytes[from] === SPACE) from++;
  return textOf(bytes, from, end);
}

/** UTF-8 text of `bytes[from..to)`; short ASCII (ids, event types, small data) without a decoder call. */
function textOf(bytes: Uint8Array, from: number, to: number): string {
  if (to - from <= 64) {
    let text = '';
    for (let i = from; i < to; i++) {
      const byte = bytes[i]!;
      if (byte >= 0x80) return decoder.decode(bytes.subarray(from, to));
      text += String.fromCharCode(byte);
    }
    return text;
  }
  return decoder.decode(bytes.subarray(from, to));
}

export class SseParser {
  readonly maxEventBytes: number;
  private readonly options: SseParserOptions;
  /** The line being read, as views of the chunks it arrived in (released when it ends). */
  private lineParts: Uint8Array[] = [];
  private lineBytes = 0;
  /** The previous chunk ended a line with CR: a leading LF in the next chunk belongs to it. */
  private afterCr = false;
  private firstLine = true;
  private readonly data = new DataBuffer();
  /** Data lines in the current event. */
  private dataLines = 0;
  /** UTF-8 bytes of the data buffer, counting a newline after each data line. */
  private dataBytes = 0;
  private eventType = '';
  private idBuffer = '';
  private idSetInBlock = false;
  private failed = false;

  constructor(options: SseParserOptions) {
    this.options = options;
    this.maxEventBytes = options.maxEventBytes;
  }

  /** True after the limit was crossed: further input is ignored. */
  get oversized(): boolean {
    return this.failed;
  }

  push(chunk: Uint8Array): void {
    if (this.failed) return;
    const length = chunk.length;
    let start = 0;
    if (this.afterCr && length > 0) {
      this.afterCr = false;
      if (chunk[0] === LF) start = 1;
    }
    // Line ends found with the native search; each position is searched again only once
    // the scan has passed it.
    let lf = -1;
    let cr = -1;
    while (start < length) {
      if (lf < start) {
        lf = chunk.indexOf(LF, start);
        if (lf === -1) lf = length;
      }
      if (cr < start) {
        cr = chunk.indexOf(CR, start);
        if (cr === -1) cr = length;
      }
      const end = Math.min(lf, cr);
      if (end === length) break;
      if (this.lineBytes === 0) {
        // The whole line is in this chunk: read it in place.
        this.lineIn(chunk, start, end);
      } else {
        this.append(chunk, start, end);
        if (this.failed) return;
        this.finishLine();
      }
      if (this.failed) return;
      start = end + 1;
      if (end === cr) {
        if (start < length) {
          if (chunk[start] === LF) start++;
        } else this.afterCr = true;
      }
    }
    // A data line of this chunk not yet dispatched is copied out: the chunk is not kept.
    this.data.settle();
    this.append(chunk, start, length);
  }

  /** The stream ended: an unfinished line or event is discarded, as the standard says. */
  end(): void {
    this.lineParts = [];
    this.lineBytes = 0;
    this.data.drop();
    this.dataLines = 0;
    this.dataBytes = 0;
  }

  private append(chunk: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    this.lineParts.push(start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end));
    this.lineBytes += end - start;
    // Checked while the line is still arriving: a line that never ends is caught here.
    const limit = this.maxEventBytes + LINE_ALLOWANCE_BYTES;
    if (this.lineBytes > limit || this.dataBytes + this.lineBytes > limit)
      this.oversize(this.dataBytes + this.lineBytes);
  }

  private oversize(bytes: number): void {
    this.failed = true;
    this.lineParts = [];
    this.lineBytes = 0;
    this.data.drop();
    this.dataLines = 0;
    this.dataBytes = 0;
    this.options.onoversize(bytes);
  }

  /** The line's byte at `index` (the line is in parts), or -1 past its end. */
  private byteAt(index: number): number {
    for (const part of this.lineParts) {
      if (index < part.length) return part[index]!;
      index -= part.length;
    }
    return -1;
  }

  /** Whether the line, from `offset`, starts with `name` followed by `:` or the line's end. */
  private isField(offset: number, name: number[]): boolean {
    for (let i = 0; i < name.length; i++) if (this.byteAt(offset + i) !== name[i]) return false;
    const next = this.byteAt(offset + name.length);
    return next === COLON || next === -1;
  }

  /** Copies the line's bytes from `from` into the data buffer, part by part. */
  private copyDataFrom(from: number): void {
    this.data.settle();
    let skip = from;
    for (const part of this.lineParts) {
      if (skip >= part.length) {
        skip -= part.length;
        continue;
      }
      this.data.append(skip === 0 ? part : part.subarray(skip));
      skip = 0;
    }
  }

  /** A line that lies whole in `chunk`, from `start` to `end` (the line break excluded). */
  private lineIn(chunk: Uint8Array, start: number, end: number): void {
    if (this.firstLine) {
      this.firstLine = false;
      if (
        end - start >= 3 &&
        chunk[start] === 0xef &&
        chunk[start + 1] === 0xbb &&
        chunk[start + 2] === 0xbf
      )
        start += 3;
    }
    if (start === end) {
      this.dispatch();
      return;
    }
    const first = chunk[start];
    if (first === COLON) return; // a comment (keep-alives)
    if (first === FIELD_DATA[0] && fieldAt(chunk, start, end, FIELD_DATA)) {
      let from = start + FIELD_DATA.length + 1;
      if (from < end && chunk[from] === SPACE) from++;
      const valueBytes = from < end ? end - from : 0;
      if (this.addDataLine(valueBytes) && valueBytes > 0)
        this.data.appendRange(chunk, from, end, this.dataLines === 1);
      return;
    }
    if (first === FIELD_EVENT[0] && fieldAt(chunk, start, end, FIELD_EVENT)) {
      this.eventType = valueIn(chunk, start + FIELD_EVENT.length, end);
    } else if (first === FIELD_ID[0] && fieldAt(chunk, start, end, FIELD_ID)) {
      const value = valueIn(chunk, start + FIELD_ID.length, end);
      if (!value.includes('\0')) {
        this.idBuffer = value;
        this.idSetInBlock = true;
      }
    } else if (first === FIELD_RETRY[0] && fieldAt(chunk, start, end, FIELD_RETRY)) {
      const value = valueIn(chunk, start + FIELD_RETRY.length, end);
      if (/^[0-9]+$/.test(value)) this.options.onretry?.(Number(value));
    }
  }

  /**
   * A line that arrived in more than one chunk. A data line (it may be as long as the limit)
   * is copied out part by part; any other line is short, and is joined and read as one.
   */
  private finishLine(): void {
    let offset = 0;
    if (
      this.firstLine &&
      this.byteAt(0) === 0xef &&
      this.byteAt(1) === 0xbb &&
      this.byteAt(2) === 0xbf
    )
      offset = 3;
    if (!this.isField(offset, FIELD_DATA)) {
      const line = joinBytes(this.lineParts, this.lineBytes);
      this.lineParts = [];
      this.lineBytes = 0;
      this.lineIn(line, 0, line.length);
      return;
    }
    this.firstLine = false;
    // The value: after `data:` and one optional space; `data` alone has an empty value.
    let from = offset + FIELD_DATA.length + 1;
    if (this.byteAt(from) === SPACE) from++;
    const valueBytes = Math.max(0, this.lineBytes - from);
    if (this.addDataLine(valueBytes) && valueBytes > 0) this.copyDataFrom(from);
    this.lineParts = [];
    this.lineBytes = 0;
  }

  /**
   * Counts a data line of `valueBytes` toward the limit (false, and the stream failed, past
   * it) and separates it from the event's previous data line.
   */
  private addDataLine(valueBytes: number): boolean {
    this.dataBytes += valueBytes + 1;
    if (this.dataBytes - 1 > this.maxEventBytes) {
      this.oversize(this.dataBytes - 1);
      return false;
    }
    if (this.dataLines > 0) this.data.appendLf();
    this.dataLines++;
    return true;
  }

  private dispatch(): void {
    if (this.idSetInBlock) {
      this.idSetInBlock = false;
      this.options.onid?.(this.idBuffer);
    }
    if (this.dataLines === 0) {
      this.eventType = '';
      return;
    }
    const data = this.data.takeText();
    const event = this.eventType || 'message';
    this.dataLines = 0;
    this.dataBytes = 0;
    this.eventType = '';
    this.options.onevent({ event, data, id: this.idBuffer });
  }
}

/**
 * Hands the JSON-RPC messages in one piece of text a server sent (an SSE event's data, or a
 * JSON body) to `onmessage`. Text that is not JSON is reported to `onerror` as a
 * `ParseError` that names `where` (the server) and `what` the text was, with an excerpt;
 * valid JSON that is not a message as an `InvalidMessageError`; text nested deeper than
 * `maxJsonDepth` as a `JsonTooDeepError`, without parsing it. One bad piece never ends
 * the stream it came on, so this reports rather than throws. Returns whether it was JSON.
 */
export function dispatchJsonText(
  text: string,
  where: string,
  onmessage: (message: JsonRpcMessage) => void,
  onerror: (error: ParseError | InvalidMessageError | JsonTooDeepError) => void,
  what = "an event's data",
  maxJsonDepth = DEFAULT_MAX_JSON_DEPTH,
): boolean {
  const tooDeep = checkJsonTextDepth(text, maxJsonDepth, where);
  if (tooDeep !== undefined) {
    onerror(tooDeep);
    return true;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    onerror(new ParseError(`${where}: ${what} is not JSON`, text.slice(0, 200), { cause }));
    return false;
  }
  dispatchParsed(value, onmessage, onerror);
  return true;
}

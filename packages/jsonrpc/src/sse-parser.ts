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
/** Room for a field name and separator on top of the data limit (`data: ` is 6 bytes). */
const LINE_ALLOWANCE_BYTES = 1024;

const decoder = new TextDecoder('utf-8');

function concat(parts: Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(bytes);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export class SseParser {
  readonly maxEventBytes: number;
  private readonly options: SseParserOptions;
  private lineParts: Uint8Array[] = [];
  private lineBytes = 0;
  /** The previous chunk ended a line with CR: a leading LF in the next chunk belongs to it. */
  private afterCr = false;
  private firstLine = true;
  private dataParts: string[] = [];
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
    let start = 0;
    if (this.afterCr && chunk.length > 0) {
      this.afterCr = false;
      if (chunk[0] === LF) start = 1;
    }
    const length = chunk.length;
    for (let i = start; i < length; i++) {
      const byte = chunk[i]!;
      if (byte !== LF && byte !== CR) continue;
      this.append(chunk, start, i);
      if (this.failed) return;
      this.finishLine();
      if (this.failed) return;
      if (byte === CR) {
        if (i + 1 < length) {
          if (chunk[i + 1] === LF) i++;
        } else {
          this.afterCr = true;
        }
      }
      start = i + 1;
    }
    this.append(chunk, start, length);
  }

  /** The stream ended: an unfinished line or event is discarded, as the standard says. */
  end(): void {
    this.lineParts = [];
    this.lineBytes = 0;
    this.dataParts = [];
    this.dataBytes = 0;
  }

  private append(chunk: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    this.lineParts.push(chunk.subarray(start, end));
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
    this.dataParts = [];
    this.dataBytes = 0;
    this.options.onoversize(bytes);
  }

  private finishLine(): void {
    let bytes = concat(this.lineParts, this.lineBytes);
    this.lineParts = [];
    this.lineBytes = 0;
    if (this.firstLine) {
      this.firstLine = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    if (bytes.length === 0) {
      this.dispatch();
      return;
    }
    if (bytes[0] === 0x3a) return; // ':' starts a comment (keep-alives)
    const line = decoder.decode(bytes);
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data': {
        // The value's bytes: the line's bytes less `data:` and one space (all ASCII).
        const valueBytes =
          colon === -1 ? 0 : bytes.length - 5 - (line.charCodeAt(5) === 0x20 ? 1 : 0);
        this.dataBytes += valueBytes + 1;
        if (this.dataBytes - 1 > this.maxEventBytes) {
          this.oversize(this.dataBytes - 1);
          return;
        }
        this.dataParts.push(value);
        return;
      }
      case 'event':
        this.eventType = value;
        return;
      case 'id':
        if (!value.includes('\0')) {
          this.idBuffer = value;
          this.idSetInBlock = true;
        }
        return;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.options.onretry?.(Number(value));
        return;
      default:
        return;
    }
  }

  private dispatch(): void {
    if (this.idSetInBlock) {
      this.idSetInBlock = false;
      this.options.onid?.(this.idBuffer);
    }
    if (this.dataParts.length === 0) {
      this.eventType = '';
      return;
    }
    const data = this.dataParts.length === 1 ? this.dataParts[0]! : this.dataParts.join('\n');
    const event = this.eventType || 'message';
    this.dataParts = [];
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

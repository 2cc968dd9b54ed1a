import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from './sse-parser.js';

/**
 * The oracle: the WHATWG "interpreting an event stream" steps, applied to the whole
 * decoded text at once (no chunking, no limits), written as literally as the standard
 * words them.
 */
function interpret(text: string): { events: SseEvent[]; retries: number[]; ids: string[] } {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const ids: string[] = [];
  let body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  // Only complete lines are processed; what follows the last line break is discarded.
  const lastBreak = Math.max(body.lastIndexOf('\n'), body.lastIndexOf('\r'));
  body = lastBreak === -1 ? '' : body.slice(0, lastBreak + 1);
  const lines = body.split(/\r\n|\r|\n/);
  lines.pop();
  let data = '';
  let type = '';
  let lastId = '';
  let idSet = false;
  for (const line of lines) {
    if (line === '') {
      if (idSet) ids.push(lastId);
      idSet = false;
      if (data === '') {
        type = '';
        continue;
      }
      if (data.endsWith('\n')) data = data.slice(0, -1);
      events.push({ event: type || 'message', data, id: lastId });
      data = '';
      type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event') type = value;
    else if (field === 'id' && !value.includes('\0')) {
      lastId = value;
      idSet = true;
    } else if (field === 'retry' && /^[0-9]+$/.test(value)) retries.push(Number(value));
  }
  return { events, retries, ids };
}

function run(chunks: Uint8Array[], maxEventBytes = 1 << 20) {
  const events: SseEvent[] = [];
  const retries: number[] = [];
  const ids: string[] = [];
  const oversize: number[] = [];
  const parser = new SseParser({
    maxEventBytes,
    onevent: (e) => events.push(e),
    onretry: (ms) => retries.push(ms),
    onid: (id) => ids.push(id),
    onoversize: (bytes) => oversize.push(bytes),
  });
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { events, retries, ids, oversize };
}

function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const p of sorted) {
    chunks.push(bytes.subarray(start, p));
    start = p;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

const encoder = new TextEncoder();
const newline = fc.constantFrom('\n', '\r', '\r\n');
const text = fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const fieldName = fc.constantFrom('data', 'event', 'id', 'retry', 'other', '', 'dat', 'DATA');
const line = fc.oneof(
  fc.tuple(fieldName, fc.constantFrom(':', ': ', ':  ', ''), text).map(([f, s, v]) => f + s + v),
  fc.tuple(fc.constant('retry:'), fc.constantFrom(' ', ''), fc.nat(99999)).map((p) => p.join('')),
  text.map((t) => `:${t}`),
  fc.constant('data'),
  fc.constant(''),
  fc.constant('id: a\0b'),
);
/** A stream: lines, each with a random line ending, maybe a BOM, maybe a trailing fragment. */
const stream = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.tuple(line, newline), { maxLength: 30 }),
    fc.option(text, { nil: '' }),
  )
  .map(
    ([bom, lines, tail]) => (bom ? '\uFEFF' : '') + lines.map(([l, n]) => l + n).join('') + tail,
  );

describe('SseParser', () => {
  it("matches the standard's interpretation for any stream and any chunking", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 12 }), (source, points) => {
        const expected = interpret(source);
        const bytes = encoder.encode(source);
        const got = run(cut(bytes, points));
        expect(got.oversize).toEqual([]);
        expect(got.events).toEqual(expected.events);
        expect(got.retries).toEqual(expected.retries);
        expect(got.ids).toEqual(expected.ids);
      }),
      { numRuns: 2000 },
    );
  });

  it('a CR at the end of one chunk and an LF at the start of the next end one line', () => {
    const got = run([encoder.encode('data: a\r'), encoder.encode('\ndata: b\r\n\r\n')]);
    expect(got.events).toEqual([{ event: 'message', data: 'a\nb', id: '' }]);
  });

  it('delivers events up to the limit and reports any larger one, whatever the chunking', () => {
    const limit = 64;
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        (dataLines, points) => {
          const source = `${dataLines.map((d) => `data: ${d}\n`).join('')}\n`;
          const data = dataLines.join('\n');
          const size = encoder.encode(data).length;
          const got = run(cut(encoder.encode(source), points), limit);
          if (size <= limit) {
            expect(got.oversize).toEqual([]);
            expect(got.events).toEqual([{ event: 'message', data, id: '' }]);
          } else {
            expect(got.events).toEqual([]);
            expect(got.oversize).toHaveLength(1);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('an event that never ends is reported while it is arriving, and nothing more is kept', () => {
    const oversize: number[] = [];
    const parser = new SseParser({
      maxEventBytes: 10_000,
      onevent: () => expect.unreachable('no event was complete'),
      onoversize: (bytes) => oversize.push(bytes),
    });
    const line = encoder.encode(`data: ${'x'.repeat(1000)}\n`);
    let pushed = 0;
    while (oversize.length === 0 && pushed < 1000) {
      parser.push(line);
      pushed++;
    }
    expect(oversize).toHaveLength(1);
    // Caught within one line of the limit, not at the end of a stream that has no end.
    expect(pushed * line.length).toBeLessThan(10_000 + 2 * line.length);
    parser.push(encoder.encode('\n\ndata: {}\n\n'));
    expect(parser.oversized).toBe(true);
  });

  it('a line that never ends (no line break at all) is reported while it is arriving', () => {
    const oversize: number[] = [];
    const parser = new SseParser({
      maxEventBytes: 4096,
      onevent: () => expect.unreachable('no event was complete'),
      onoversize: (bytes) => oversize.push(bytes),
    });
    const chunk = encoder.encode(':'.repeat(1024));
    for (let i = 0; i < 6 && oversize.length === 0; i++) parser.push(chunk);
    expect(oversize).toEqual([6 * 1024]);
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    // 30 three-byte characters: 30 characters, 90 bytes.
    const got = run([encoder.encode(`data: ${'€'.repeat(30)}\n\n`)], 64);
    expect(got.events).toEqual([]);
    expect(got.oversize).toEqual([90]);
  });
});

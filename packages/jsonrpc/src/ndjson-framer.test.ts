import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessageTooLargeError, ParseError } from './errors.js';
import { NdjsonFramer, serializeNdjson } from './ndjson-framer.js';

function collect(maxMessageBytes?: number) {
  const values: unknown[] = [];
  const errors: Error[] = [];
  const framer = new NdjsonFramer({
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
    onvalue: (v) => values.push(v),
    onerror: (e) => errors.push(e),
  });
  return { framer, values, errors };
}

/** Splits a buffer at the given (sorted, deduplicated) cut points. */
function cut(buffer: Buffer, points: number[]): Buffer[] {
  const sorted = [...new Set(points.map((p) => p % (buffer.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const p of sorted) {
    chunks.push(buffer.subarray(start, p));
    start = p;
  }
  chunks.push(buffer.subarray(start));
  return chunks;
}

const jsonValue = fc.jsonValue().filter((v) => v !== null || true);
const message = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), fc.string()),
  method: fc.string(),
  params: fc.dictionary(fc.string(), jsonValue),
});

describe('NdjsonFramer', () => {
  it('any chunking of a valid byte stream yields the same messages', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (messages, points) => {
          const bytes = Buffer.from(messages.map(serializeNdjson).join(''), 'utf8');
          const { framer, values, errors } = collect();
          for (const chunk of cut(bytes, points)) framer.push(chunk);
          framer.end();
          expect(errors).toEqual([]);
          expect(values).toEqual(JSON.parse(JSON.stringify(messages)));
        },
      ),
    );
  });

  it('a garbage line is skipped without losing the messages around it', () => {
    const garbage = fc
      .string({ minLength: 1 })
      .filter((s) => !s.includes('\n'))
      .filter((s) => {
        try {
          JSON.parse(s);
          return false;
        } catch {
          return s.trim().length > 0;
        }
      });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            message.map((m) => ({ m })),
            garbage.map((g) => ({ g })),
          ),
          { maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 30 }),
        (items, points) => {
          const text = items.map((x) => ('m' in x ? serializeNdjson(x.m) : `${x.g}\n`)).join('');
          const { framer, values, errors } = collect();
          for (const chunk of cut(Buffer.from(text, 'utf8'), points)) framer.push(chunk);
          framer.end();
          const expected = items
            .filter((x) => 'm' in x)
            .map((x) => JSON.parse(JSON.stringify((x as { m: unknown }).m)));
          expect(values).toEqual(expected);
          expect(errors).toHaveLength(items.length - expected.length);
          for (const e of errors) expect(e).toBeInstanceOf(ParseError);
        },
      ),
    );
  });

  it('multi-byte UTF-8 characters split across chunks decode intact', () => {
    const msg = { text: 'héllo — 日本語 🎉' };
    const bytes = Buffer.from(serializeNdjson(msg));
    for (let i = 0; i <= bytes.length; i++) {
      const { framer, values } = collect();
      framer.push(bytes.subarray(0, i));
      framer.push(bytes.subarray(i));
      expect(values).toEqual([msg]);
    }
  });

  it('accepts CRLF line endings and ignores blank lines', () => {
    const { framer, values, errors } = collect();
    framer.push(Buffer.from('{"a":1}\r\n\r\n\n  \n{"b":2}\r\n'));
    expect(values).toEqual([{ a: 1 }, { b: 2 }]);
    expect(errors).toEqual([]);
  });

  it('reports an oversized line once, skips it, and keeps framing after it', () => {
    const { framer, values, errors } = collect(100);
    framer.push(Buffer.from('{"small":1}\n{"big":"'));
    for (let i = 0; i < 50; i++) framer.push(Buffer.from('x'.repeat(1000)));
    expect(framer.bufferedBytes).toBe(0);
    framer.push(Buffer.from('"}\n{"after":2}\n'));
    expect(values).toEqual([{ small: 1 }, { after: 2 }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(MessageTooLargeError);
  });

  it('whole lines inside one chunk keep the size limit: exactly the limit passes, one byte more is dropped', () => {
    const { framer, values, errors } = collect(20);
    const atLimit = `{"a":"${'x'.repeat(12)}"}`; // 20 bytes
    const overLimit = `{"b":"${'x'.repeat(13)}"}`; // 21 bytes
    framer.push(Buffer.from(`${atLimit}\n${overLimit}\n{"c":3}\n`));
    expect(values).toEqual([{ a: 'x'.repeat(12) }, { c: 3 }]);
    expect(errors).toHaveLength(1);
    expect(MessageTooLargeError.isInstance(errors[0])).toBe(true);
    expect(framer.bufferedBytes).toBe(0);
  });

  it('a line that never ends fails its request as soon as it crosses the limit (id in its head)', () => {
    const { framer, values, errors } = collect(1000);
    framer.push(Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"t":"'));
    for (let i = 0; i < 5 && errors.length === 0; i++) framer.push(Buffer.from('z'.repeat(300)));
    expect(errors).toHaveLength(1);
    expect((errors[0] as MessageTooLargeError).id).toBe(7);
    expect(framer.bufferedBytes).toBe(0);
    // The rest of it is skipped without a second report; framing goes on after its end.
    for (let i = 0; i < 100; i++) framer.push(Buffer.from('z'.repeat(1000)));
    framer.push(Buffer.from('"}}\n{"after":1}\n'));
    expect(errors).toHaveLength(1);
    expect(values).toEqual([{ after: 1 }]);
  });

  it('names the id of a dropped oversized message, from its head or its tail', () => {
    for (const text of [
      `{"jsonrpc":"2.0","id":42,"result":{"t":"${'z'.repeat(5000)}"}}\n`,
      `{"result":{"t":"${'z'.repeat(5000)}"},"jsonrpc":"2.0","id":"abc"}\n`,
    ]) {
      const { framer, errors } = collect(1000);
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 300) framer.push(bytes.subarray(i, i + 300));
      expect(errors).toHaveLength(1);
      expect((errors[0] as MessageTooLargeError).id).toBe(text.includes('42') ? 42 : 'abc');
    }
  });

  it('flushes a final line without a newline at end of stream', () => {
    const { framer, values } = collect();
    framer.push(Buffer.from('{"a":1}\n{"b":'));
    framer.push(Buffer.from('2}'));
    expect(values).toEqual([{ a: 1 }]);
    framer.end();
    expect(values).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('frames a 20 MB line delivered in 64 KiB chunks', () => {
    const big = { text: 'y'.repeat(20 * 1024 * 1024) };
    const bytes = Buffer.from(serializeNdjson(big));
    const { framer, values } = collect();
    for (let i = 0; i < bytes.length; i += 65536) framer.push(bytes.subarray(i, i + 65536));
    expect(values).toHaveLength(1);
    expect((values[0] as { text: string }).text.length).toBe(big.text.length);
  });
});

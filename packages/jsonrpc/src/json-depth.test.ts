import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ErrorCode, JsonTooDeepError } from './errors.js';
import {
  assertJsonDepth,
  checkJsonTextDepth,
  DEFAULT_MAX_JSON_DEPTH,
  jsonTextDepth,
  jsonValueDepth,
} from './json-depth.js';
import { NdjsonFramer } from './ndjson-framer.js';
import { dispatchJsonText } from './sse-parser.js';

/** The reference: a plain recursive depth, fine for the shallow values the properties make. */
function recursiveDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let max = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value))
    max = Math.max(max, recursiveDepth(child));
  return max + 1;
}

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);
/** Objects inside objects: `{"a":{"a":…{}}}`. */
const nestedObjects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

describe('jsonTextDepth and jsonValueDepth', () => {
  test('agree with a recursive depth for any JSON value (strings with brackets, quotes and escapes included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value);
        const expected = recursiveDepth(value);
        expect(jsonTextDepth(text)).toBe(expected);
        expect(jsonValueDepth(value, Number.POSITIVE_INFINITY)).toBe(expected);
        expect(jsonTextDepth(JSON.stringify(value, null, 2))).toBe(expected);
      }),
      { numRuns: 200 },
    );
  }, 60_000);

  test('brackets inside strings, and escaped quotes before them, do not count', () => {
    expect(jsonTextDepth('["[[[[", "\\"[[[", "\\\\", [1]]')).toBe(2);
    expect(jsonTextDepth('{"a\\\\":"}}}{{{"}')).toBe(1);
  });

  test.each([1_000, 10_000, 100_000])(
    'never throw at depth %i (no recursion), for arrays and objects',
    (depth) => {
      expect(jsonTextDepth(nested(depth))).toBe(depth);
      expect(jsonTextDepth(nestedObjects(depth))).toBe(depth);
      expect(jsonValueDepth(JSON.parse(nested(depth)), Number.POSITIVE_INFINITY)).toBe(depth);
      // Stopping early gives the first depth past the bound.
      expect(jsonTextDepth(nested(depth), 256)).toBe(257);
      expect(jsonValueDepth(JSON.parse(nestedObjects(depth)), 256)).toBe(257);
    },
    60_000,
  );

  test('a cycle counts as deeper than any bound (the walk ends)', () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    expect(jsonValueDepth(a, 300)).toBe(301);
  });

  test('any deep JSON value: the check fails with a typed error, never a RangeError', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: DEFAULT_MAX_JSON_DEPTH + 1, max: 120_000 }),
        fc.boolean(),
        (depth, objects) => {
          const text = objects ? nestedObjects(depth) : nested(depth);
          const error = checkJsonTextDepth(text, DEFAULT_MAX_JSON_DEPTH);
          expect(error?.depth).toBe(depth);
          expect(() => assertJsonDepth(JSON.parse(text), DEFAULT_MAX_JSON_DEPTH, 'x')).toThrow(
            JsonTooDeepError,
          );
        },
      ),
      { numRuns: 12 },
    );
  }, 60_000);
});

describe('checkJsonTextDepth', () => {
  test('text shorter than twice the limit is never scanned; at the limit passes, one more fails', () => {
    expect(checkJsonTextDepth(nested(256), 256)).toBeUndefined();
    const error = checkJsonTextDepth(nested(257), 256);
    expect(error?.code).toBe(ErrorCode.JsonTooDeep);
    expect(error?.maxDepth).toBe(256);
    expect(error?.depth).toBe(257);
  });

  test("reads the message's own id and kind from its first bytes, as for a message too large", () => {
    const response = `{"jsonrpc":"2.0","id":7,"result":{"x":${nested(1000)}}}`;
    expect(checkJsonTextDepth(response, 256)).toMatchObject({ id: 7, kind: 'response' });
    const request = `{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"x":${nested(1000)}}}`;
    expect(checkJsonTextDepth(request, 256)).toMatchObject({ id: 'r1', kind: 'request' });
    const notification = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":${nested(1000)}}}`;
    expect(checkJsonTextDepth(notification, 256)).toMatchObject({ id: null });
  });
});

describe('the framers refuse deep text before parsing it', () => {
  test('NdjsonFramer reports a deep line and goes on with the next', () => {
    const values: unknown[] = [];
    const errors: Error[] = [];
    const framer = new NdjsonFramer({
      maxJsonDepth: 64,
      onvalue: (v) => values.push(v),
      onerror: (e) => errors.push(e),
    });
    framer.push(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${nested(100)}}\n{"ok":true}\n`));
    expect(values).toEqual([{ ok: true }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(JsonTooDeepError);
    expect(errors[0]).toMatchObject({ id: 1, kind: 'response', maxDepth: 64 });
  });

  test('dispatchJsonText names where the text came from', () => {
    const errors: Error[] = [];
    dispatchJsonText(
      nested(300),
      'server "x"',
      () => {},
      (e) => errors.push(e),
    );
    expect(errors[0]).toBeInstanceOf(JsonTooDeepError);
    expect(errors[0]!.message).toMatch(/^server "x": a message nesting 300 levels deep/);
  });
});

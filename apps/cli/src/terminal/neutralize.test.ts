import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutralize, neutralizeBlock, terminalSafeJson } from './neutralize.js';

/** Every code unit a terminal may act on, except the ones `allowed`. */
function forbidden(text: string, allowed: string): string[] {
  const found: string[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const control =
      c <= 0x1f ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0x061c ||
      c === 0x200e ||
      c === 0x200f ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069);
    if (control && !allowed.includes(ch)) found.push(ch);
  }
  return found;
}

// Strings rich in what matters: controls of every range, bidi controls, CRLF, plain text.
const hostileChar = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u061c', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\r\n'),
  fc.string({ unit: 'binary', maxLength: 3 }),
);
const hostile = fc.oneof(
  fc.array(hostileChar, { maxLength: 40 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary' }),
);

describe('neutralize', () => {
  it('property: the output never holds a control character other than the allowed \\n and \\t (10,000 runs each)', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(forbidden(neutralize(text), '')).toEqual([]);
        expect(forbidden(neutralizeBlock(text), '\n\t')).toEqual([]);
        expect(forbidden(neutralize(text, { tabs: true }), '\t')).toEqual([]);
      }),
      { numRuns: 10_000 },
    );
  });

  it('property: text without control characters comes back unchanged (10,000 runs)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        fc.pre(forbidden(text, '').length === 0);
        expect(neutralize(text)).toBe(text);
      }),
      { numRuns: 10_000 },
    );
  });

  it('shows OSC 52, OSC 0, ESC[2J, bare CR and bidi overrides escaped, not dropped', () => {
    const osc52 = '\x1b]52;c;ZXZpbA==\x07';
    expect(neutralize(`a${osc52}b`)).toBe('a\\x1b]52;c;ZXZpbA==\\x07b');
    expect(neutralize('\x1b]0;pwned\x1b\\')).toBe('\\x1b]0;pwned\\x1b\\');
    expect(neutralize('\x1b[2Jclear')).toBe('\\x1b[2Jclear');
    expect(neutralize('safe\rEVIL')).toBe('safe\\rEVIL');
    expect(neutralize('\u009b31m')).toBe('\\u009b31m');
    expect(neutralize('abc\u202edcba')).toBe('abc\\u202edcba');
    expect(neutralize('\x7f')).toBe('\\u007f');
  });

  it('keeps newlines and tabs only where asked; CRLF becomes a newline in blocks', () => {
    expect(neutralize('a\nb\tc')).toBe('a\\nb\\tc');
    expect(neutralizeBlock('a\r\nb\tc\rd')).toBe('a\nb\tc\\rd');
    expect(neutralize('a\r\nb')).toBe('a\\r\\nb');
  });
});

describe('terminalSafeJson', () => {
  it('neutralizing JSON text gives JSON with the same value', () => {
    const doc = JSON.stringify({ a: 'x\u007f\u009b\u202e\\', '\u0085': [1] });
    expect(JSON.parse(neutralize(doc))).toEqual(JSON.parse(doc));
  });

  it('property: parses back to the same value and holds no control character but newlines (10,000 runs)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostile, (value, text) => {
        const doc = { value, text, [text]: text };
        const out = terminalSafeJson(doc);
        expect(forbidden(out, '\n')).toEqual([]);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(doc)));
      }),
      { numRuns: 10_000 },
    );
  });
});

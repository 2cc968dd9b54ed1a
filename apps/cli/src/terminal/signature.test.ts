import { describe, expect, it } from 'vitest';
import { fit, parameterLines, signature } from './signature.js';

describe('signature', () => {
  it('required and optional parameters, in the schema order', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' } },
      required: ['a'],
    };
    expect(signature('get-sum', schema)).toBe('get-sum(a: number, b?: string)');
  });

  it('enums, arrays, unions, nullable types, const, and what cannot be said briefly', () => {
    const schema = {
      type: 'object',
      properties: {
        format: { enum: ['json', 'text'] },
        tags: { type: 'array', items: { type: 'string' } },
        modes: { type: 'array', items: { enum: ['r', 'w'] } },
        any: { type: 'array' },
        id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        note: { type: ['string', 'null'] },
        kind: { const: 'x' },
        free: {},
        deep: {
          type: 'array',
          items: {
            type: 'array',
            items: { type: 'array', items: { type: 'array', items: { type: 'array' } } },
          },
        },
      },
      required: ['format', 'tags', 'modes', 'any', 'id', 'note', 'kind', 'free', 'deep'],
    };
    expect(signature('t', schema)).toBe(
      't(format: "json"|"text", tags: string[], modes: ("r"|"w")[], any: array, id: string|integer, note: string|null, kind: "x", free: any, deep: any[][][][])',
    );
  });

  it('a schema that is not an object schema, or properties that are not schemas, still give a line', () => {
    expect(signature('t', undefined)).toBe('t()');
    expect(signature('t', { type: 'object', properties: [] })).toBe('t()');
    expect(signature('t', { properties: { x: 5 }, required: [1] })).toBe('t(x?: any)');
  });
});

describe('parameterLines', () => {
  it('type, required or optional, default, the first line of the description', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'number', description: 'First number\nmore' },
        count: { type: 'integer', default: 3 },
      },
      required: ['a'],
    };
    expect(parameterLines(schema)).toEqual([
      '  a: number       (required)  First number',
      '  count: integer  (optional, default 3)',
    ]);
    expect(parameterLines({ type: 'object' })).toEqual(['  (no parameters)']);
  });
});

describe('fit', () => {
  it('cuts to the width with an ellipsis, counts characters not UTF-16 units, leaves short text', () => {
    expect(fit('abcdefghij', 8)).toBe('abcdefg…');
    expect(fit('😀😀😀😀😀😀😀😀😀', 8)).toBe('😀😀😀😀😀😀😀…');
    expect(fit('short', 80)).toBe('short');
    expect(fit('no terminal', undefined)).toBe('no terminal');
  });
});

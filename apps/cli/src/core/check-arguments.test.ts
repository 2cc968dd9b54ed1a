import { describe, expect, it } from 'vitest';
import { checkArguments } from './check-arguments.js';

const sum = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
};

describe('checkArguments', () => {
  it('arguments that fit pass', async () => {
    await expect(checkArguments('s', 'get-sum', sum, { a: 1, b: 2 })).resolves.toBeUndefined();
  });

  it('an unknown key and a missing one are both named, with the parameters it has', async () => {
    await expect(checkArguments('s', 'get-sum', sum, { a: 1, c: 1 })).rejects.toThrow(
      'tool "get-sum" of server "s": it has no parameter "c"; it needs "b: number" (its parameters: a: number, b: number; --no-check sends the call as given)',
    );
  });

  it('a nearby unknown key gets the parameter it was likely meant for', async () => {
    const schema = { type: 'object', properties: { message: { type: 'string' } } };
    await expect(checkArguments('s', 'echo', schema, { mesage: 'hi' })).rejects.toThrow(
      'it has no parameter "mesage" — did you mean "message"?',
    );
  });

  it('a schema that takes other keys (additionalProperties) lets them through', async () => {
    const open = { ...sum, additionalProperties: true };
    await expect(checkArguments('s', 't', open, { a: 1, b: 2, c: 3 })).resolves.toBeUndefined();
  });

  it('types and enums are checked by the schema (ajv), the key named', async () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1 }, f: { enum: ['json', 'text'] } },
    };
    await expect(checkArguments('s', 't', schema, { n: 0, f: 'xml' })).rejects.toThrow(
      /"n" must be >= 1; "f" must be equal to one of the allowed values/,
    );
  });

  it('a schema ajv cannot compile leaves the judgement to the server', async () => {
    const broken = { type: 'object', properties: { a: { type: 'nonsense' } } };
    await expect(checkArguments('s', 't', broken, { a: 1 })).resolves.toBeUndefined();
  });
});

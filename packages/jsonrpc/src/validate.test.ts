import { describe, expect, it } from 'vitest';
import { InvalidMessageError } from './errors.js';
import type { JsonRpcMessage } from './messages.js';
import { dispatchParsed, validateMessage } from './validate.js';

describe('validateMessage', () => {
  it.each([
    { jsonrpc: '2.0', id: 1, method: 'a' },
    { jsonrpc: '2.0', id: 'x', method: 'a', params: { p: 1 } },
    { jsonrpc: '2.0', id: 2, method: 'a', params: [1, 2] },
    { jsonrpc: '2.0', method: 'n' },
    { jsonrpc: '2.0', id: 3, result: {} },
    { jsonrpc: '2.0', id: 3, result: null },
    { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'nope' } },
    { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse', data: 'x' } },
  ])('accepts %j', (value) => {
    expect(validateMessage(value).ok).toBe(true);
  });

  it.each([
    [null, null],
    [[], null],
    ['str', null],
    [{ id: 1, method: 'a' }, 1],
    [{ jsonrpc: '1.0', id: 1, method: 'a' }, 1],
    [{ jsonrpc: '2.0', id: 1, method: 5 }, 1],
    [{ jsonrpc: '2.0', id: 1, method: 'a', params: 'x' }, 1],
    [{ jsonrpc: '2.0', id: { x: 1 }, method: 'a' }, null],
    [{ jsonrpc: '2.0', id: 1 }, 1],
    [{ jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'm' } }, 1],
    [{ jsonrpc: '2.0', id: null, result: 1 }, null],
    [{ jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } }, 1],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } }, 1],
    [{ jsonrpc: '2.0', id: 1, error: { code: 1 } }, 1],
  ])('rejects %j, keeping a usable id (%j)', (value, id) => {
    const r = validateMessage(value);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toBeInstanceOf(InvalidMessageError);
      expect(r.error.id).toBe(id);
    }
  });
});

describe('dispatchParsed', () => {
  it('splits a batch and reports each bad entry without hiding the good ones', () => {
    const ok: JsonRpcMessage[] = [];
    const bad: InvalidMessageError[] = [];
    dispatchParsed(
      [
        { jsonrpc: '2.0', method: 'a' },
        { nope: true },
        { jsonrpc: '2.0', id: 1, result: 2 },
        [{ jsonrpc: '2.0', method: 'nested' }],
      ],
      (m) => ok.push(m),
      (e) => bad.push(e),
    );
    expect(ok.map((m) => ('method' in m ? m.method : m.id))).toEqual(['a', 1]);
    expect(bad).toHaveLength(2);
  });

  it('an empty batch is invalid', () => {
    const bad: unknown[] = [];
    dispatchParsed(
      [],
      () => {},
      (e) => bad.push(e),
    );
    expect(bad).toHaveLength(1);
  });
});

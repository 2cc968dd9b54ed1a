import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeDroppedLine } from './dropped-line.js';

const WINDOW = 256;
const windows = (line: string) => [line.slice(0, WINDOW), line.slice(-WINDOW)] as const;
const pad = 'x'.repeat(2000);

describe('describeDroppedLine', () => {
  it('a request: its id and kind from the first bytes', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { pad } });
    expect(describeDroppedLine(...windows(line))).toEqual({ id: 7, kind: 'request' });
  });

  it('an "id" inside params is not the message\'s: a notification has no id and no certain kind', () => {
    const line = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { id: 5, data: pad, last: { id: 6 } },
    });
    expect(describeDroppedLine(...windows(line))).toEqual({ id: null, kind: undefined });
  });

  it('a response, with its id first or last; a "method" inside its result does not make it a request', () => {
    const first = JSON.stringify({ jsonrpc: '2.0', id: 'a"b', result: { method: 'x', pad } });
    expect(describeDroppedLine(...windows(first))).toEqual({ id: 'a"b', kind: 'response' });
    const last = `{"jsonrpc":"2.0","result":{"pad":"${pad}"},"id":12}`;
    expect(describeDroppedLine(...windows(last))).toEqual({ id: 12, kind: 'response' });
    const error = JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: 1, message: pad } });
    expect(describeDroppedLine(...windows(error))).toEqual({ id: 3, kind: 'response' });
  });

  it('a request whose id comes after a long params: the id from the last bytes', () => {
    const line = `{"jsonrpc":"2.0","method":"tools/call","params":{"pad":"${pad}"},"id":"late"}`;
    expect(describeDroppedLine(...windows(line))).toEqual({ id: 'late', kind: 'request' });
  });

  it('never names a wrong id or kind for any message cut to its first and last bytes', () => {
    const id = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string({ maxLength: 40 }),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(
          fc.constantFrom('id', 'method', 'result', 'error', 'x', 'params'),
          tie('node'),
          {
            maxKeys: 4,
          },
        ),
      ),
    })).node;
    const message = fc.oneof(
      fc.record({ kind: fc.constant('request' as const), id, method: fc.string(), params: value }),
      fc.record({ kind: fc.constant('notification' as const), method: fc.string(), params: value }),
      fc.record({ kind: fc.constant('response' as const), id, result: value }),
    );
    fc.assert(
      fc.property(
        message,
        fc.boolean(),
        fc.integer({ min: 0, max: 3000 }),
        (m, idLast, padding) => {
          const { kind, ...body } = m;
          const filler = { pad: 'p'.repeat(padding) };
          const members: Array<[string, unknown]> = Object.entries({ jsonrpc: '2.0', ...body });
          if ('params' in body) members.push(['params2', filler]);
          else members.push(['extra', filler]);
          if (idLast && 'id' in body) {
            const at = members.findIndex(([k]) => k === 'id');
            members.push(members.splice(at, 1)[0]!);
          }
          const line = JSON.stringify(Object.fromEntries(members));
          const seen = describeDroppedLine(...windows(line));
          if (seen.id !== null) expect(seen.id).toEqual((body as { id?: unknown }).id);
          if (seen.kind === 'response') expect(kind).toBe('response');
          if (seen.kind === 'request') expect(kind).toBe('request');
        },
      ),
      { numRuns: 3000 },
    );
  });
});

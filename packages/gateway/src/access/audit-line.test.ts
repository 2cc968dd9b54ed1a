import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from './audit.js';
import { auditHead, auditLine, auditTail } from './audit-line.js';

/** Text that JSON must escape, or that is easy to get wrong: quotes, backslashes, controls, non-BMP, lone surrogates. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }),
  fc.constantFrom(
    '"',
    '\\',
    '\\"',
    '\u0000',
    '\n',
    '\r\n',
    '\u2028\u2029',
    '😀',
    '\ud800',
    'a"b\\c\u001fd',
  ),
);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

const record = fc.record({
  time: fc.constant('2026-12-06T23:00:00.000Z'),
  subject: maybe(hostile),
  clientId: maybe(hostile),
  session: maybe(hostile),
  endpoint: hostile,
  server: hostile,
  method: fc.constantFrom('tools/call', 'prompts/get', 'resources/read'),
  tool: hostile,
  durationMs: fc.double({ min: 0, max: 1e7, noNaN: true }).map((d) => Math.round(d * 1000) / 1000),
  outcome: fc.constantFrom('ok', 'tool-error', 'protocol-error', 'refused') as fc.Arbitrary<
    AuditRecord['outcome']
  >,
  reason: maybe(hostile),
  requestBytes: fc.nat(),
  responseBytes: fc.nat(),
  arguments: maybe(fc.jsonValue()),
});

describe('audit lines written without a record object', () => {
  it('hold the same values as JSON.stringify of the record, on one line, for any text in them', () => {
    fc.assert(
      fc.property(record, (r) => {
        const { responseBytes, arguments: args, ...head } = r;
        const line = auditLine(auditHead(head), responseBytes, auditTail(args));
        expect(line.indexOf('\n')).toBe(line.length - 1);
        expect(JSON.parse(line)).toEqual(JSON.parse(JSON.stringify(r)));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the record order of the fields and leaves absent ones out', () => {
    const line = auditLine(
      auditHead({
        time: '2026-12-06T23:00:00.000Z',
        subject: 'ada "the" \\admin',
        clientId: undefined,
        session: 's1',
        endpoint: 'default',
        server: 'notes',
        method: 'tools/call',
        tool: 'read_notes',
        durationMs: 1.5,
        outcome: 'ok',
        reason: undefined,
        requestBytes: 80,
      }),
      91,
      auditTail({ q: 'x' }),
    );
    expect(line).toBe(
      '{"time":"2026-12-06T23:00:00.000Z","subject":"ada \\"the\\" \\\\admin","session":"s1","endpoint":"default","server":"notes","method":"tools/call","tool":"read_notes","durationMs":1.5,"outcome":"ok","requestBytes":80,"responseBytes":91,"arguments":{"q":"x"}}\n',
    );
  });

  it('leaves out arguments that cannot be written as JSON, and still writes the line', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(auditTail(cyclic)).toBe('}\n');
    expect(auditTail(10n)).toBe('}\n');
  });
});

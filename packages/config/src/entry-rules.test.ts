import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkEntry, checkPolicyEntry, knownFields } from './entry-rules.js';
import { buildSchemas } from './schemas.js';
import { SERVER_TYPES, type ServerType } from './server-types.js';

const schemas = buildSchemas(z);

// Values near each rule's edges: right and wrong types, empty strings, URLs of each scheme,
// ports and timeouts at their limits, unsafe integers, nested objects and arrays.
const scalar = fc.oneof(
  fc.constantFrom(
    '',
    'x',
    'http://a',
    'https://a',
    'HTTP://A',
    'ws://a',
    'wss://a',
    'ftp://a',
    '${URL}',
    'stdio',
    'sse',
    'http',
    'streamable-http',
    'ws',
    'sse-ide',
    'ws-ide',
    'sdk',
    'proxy',
  ),
  fc.string(),
  fc.constantFrom(0, 1, -1, 1.5, 65535, 65536, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('object')),
  array: fc.array(fc.oneof(scalar, fc.string()), { maxLength: 3 }),
  object: fc.dictionary(
    fc.constantFrom('clientId', 'callbackPort', 'authServerMetadataUrl', 'scopes', 'xaa', 'a', 'K'),
    tie('any'),
    { maxKeys: 4 },
  ),
})).any;

// An oauth-like object: known keys with scalar values, so a single wrong field decides.
const oauthish = fc.dictionary(
  fc.constantFrom('clientId', 'callbackPort', 'authServerMetadataUrl', 'scopes', 'xaa'),
  fc.oneof(scalar, fc.array(fc.string(), { maxLength: 2 })),
  { maxKeys: 3 },
);

const fields = [
  'type',
  'command',
  'args',
  'env',
  'url',
  'headers',
  'headersHelper',
  'oauth',
  'timeout',
  'disabled',
  'ideName',
  'ideRunningInWindows',
  'authToken',
  'name',
  'id',
  'extra',
];

function entryFor(type: ServerType) {
  const valid = validEntry(type);
  return fc
    .tuple(
      fc.dictionary(fc.constantFrom(...fields), fc.oneof(value, oauthish), { maxKeys: 5 }),
      fc.subarray(Object.keys(valid)),
    )
    .map(([noise, keep]) => {
      const base: Record<string, unknown> = {};
      for (const k of keep) base[k] = valid[k];
      return { ...base, ...noise, ...(type === 'stdio' && !('type' in noise) ? {} : { type }) };
    });
}

function oauthShapeOf(entry: Record<string, unknown>): Record<string, unknown> {
  return {
    ...(entry.oauth as Record<string, unknown>),
    authServerMetadataUrl: 'https://as',
  };
}

function validEntry(type: ServerType): Record<string, unknown> {
  const remote = { url: 'https://h', headers: { A: 'b' }, headersHelper: 'h', timeout: 5 };
  switch (type) {
    case 'stdio':
      return { command: 'node', args: ['a'], env: { A: 'b' }, timeout: 1, disabled: false };
    case 'sse':
    case 'http':
    case 'streamable-http':
      return { ...remote, oauth: { clientId: 'c', callbackPort: 80, scopes: ['s'], xaa: true } };
    case 'ws':
      return { url: 'wss://h', headers: { A: 'b' }, headersHelper: 'h' };
    case 'sse-ide':
      return { url: 'http://h', ideName: 'i', ideRunningInWindows: true };
    case 'ws-ide':
      return { url: 'ws://h', ideName: 'i', authToken: 't' };
    case 'sdk':
      return { name: 'n' };
    case 'proxy':
      return { url: 'https://h', id: 'i' };
  }
}

describe('hand-written entry rules agree with the zod schemas', () => {
  for (const type of SERVER_TYPES) {
    it(`"${type}": same verdict and same data on generated entries (property, 3,000 runs)`, () => {
      const schema = schemas.serverSchemasByType[type];
      let valid = 0;
      fc.assert(
        fc.property(entryFor(type), (raw) => {
          const zod = schema.safeParse(raw);
          const ours = checkEntry(type, raw);
          expect(ours !== undefined).toBe(zod.success);
          if (zod.success) {
            valid++;
            expect(ours).toEqual(zod.data);
          }
        }),
        { numRuns: 3000 },
      );
      // Both verdicts occur often enough for the agreement to mean something.
      expect(valid).toBeGreaterThan(150);
      expect(valid).toBeLessThan(2850);
    });
    it(`"${type}": the valid example passes and the known fields are the schema's`, () => {
      expect(checkEntry(type, { ...validEntry(type), type })).toBeDefined();
      expect(new Set(knownFields(type))).toEqual(
        new Set(Object.keys(schemas.serverSchemasByType[type].shape)),
      );
    });
  }

  for (const type of SERVER_TYPES) {
    it(`"${type}": a valid entry with one field changed to an edge value (property, 2,000 runs)`, () => {
      const schema = schemas.serverSchemasByType[type];
      const valid: Record<string, unknown> = { ...validEntry(type), type };
      const paths = [
        ...knownFields(type).filter((f) => f !== 'type'),
        ...(valid.oauth ? Object.keys(oauthShapeOf(valid)).map((k) => `oauth.${k}`) : []),
      ];
      fc.assert(
        fc.property(fc.constantFrom(...paths), fc.oneof(scalar, value), (path, edge) => {
          const raw: Record<string, unknown> = structuredClone(valid);
          const [head, sub] = path.split('.');
          if (sub) (raw[head!] as Record<string, unknown>)[sub] = edge;
          else raw[head!] = edge;
          const zod = schema.safeParse(raw);
          const ours = checkEntry(type, raw);
          expect(ours !== undefined).toBe(zod.success);
          if (zod.success) expect(ours).toEqual(zod.data);
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('policy entries: same verdict and data (property, 3,000 runs)', () => {
    const entry = fc.oneof(
      value,
      fc.dictionary(fc.constantFrom('serverName', 'serverCommand', 'serverUrl', 'x'), value, {
        maxKeys: 3,
      }),
      fc.record({ serverCommand: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }) }),
    );
    fc.assert(
      fc.property(entry, (raw) => {
        const zod = schemas.PolicyEntrySchema.safeParse(raw);
        const ours = checkPolicyEntry(raw);
        expect(ours !== undefined).toBe(zod.success);
        if (zod.success) expect(ours).toEqual(zod.data);
      }),
      { numRuns: 3000 },
    );
  });
});

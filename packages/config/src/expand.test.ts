import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandServer, expandString, referencedVariables } from './expand.js';

/** The definition, written independently: scan for `${`, take up to the next `}`. */
function reference(
  template: string,
  env: Map<string, string>,
): { value: string; missing: string[] } {
  let value = '';
  const missing: string[] = [];
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf('${', i);
    const end = start === -1 ? -1 : template.indexOf('}', start + 2);
    if (start === -1 || end === -1 || end === start + 2) {
      // No (non-empty) `${…}` from here: copy one character and keep looking.
      if (start === -1 || end === -1) {
        value += template.slice(i);
        break;
      }
      value += template.slice(i, start + 1);
      i = start + 1;
      continue;
    }
    value += template.slice(i, start);
    const body = template.slice(start + 2, end);
    const sep = body.indexOf(':-');
    const name = sep === -1 ? body : body.slice(0, sep);
    const fallback = sep === -1 ? undefined : body.slice(sep + 2);
    const found = env.get(name);
    if (found !== undefined && !(fallback !== undefined && found === '')) value += found;
    else if (fallback !== undefined) value += fallback;
    else {
      missing.push(name);
      value += template.slice(start, end + 1);
    }
    i = end + 1;
  }
  return { value, missing };
}

const PROTO_NAMES = [
  'constructor',
  'toString',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  '__defineGetter__',
];
const name = fc.oneof(
  fc.constantFrom(...PROTO_NAMES, 'HOME', 'TOKEN', 'A', ''),
  fc.stringMatching(/^[A-Za-z_]{1,6}$/),
);
const piece = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', '$', '{', '}', ':', '-', ' '), maxLength: 6 }),
  name.map((n) => `\${${n}}`),
  fc.tuple(name, fc.string({ maxLength: 4 })).map(([n, d]) => `\${${n}:-${d.replace(/}/g, '')}}`),
);

describe('expansion (issue #10 finding 10)', () => {
  it('${constructor}, ${toString} and ${__proto__} are missing variables, not inherited properties', () => {
    for (const env of [{}, process.env, { HOME: '/h' }]) {
      const r = expandString('${constructor}|${toString}|${__proto__}|${hasOwnProperty}', env);
      expect(r.value).toBe('${constructor}|${toString}|${__proto__}|${hasOwnProperty}');
      expect(r.missing).toEqual(['constructor', 'toString', '__proto__', 'hasOwnProperty']);
    }
    // An own variable of such a name is used.
    const own = Object.create(null) as Record<string, string>;
    Object.defineProperty(own, 'constructor', { value: 'c', enumerable: true });
    expect(expandString('${constructor}', own).value).toBe('c');
  });

  it('equals the reference definition for random templates and environments, prototype names included', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
        fc.array(fc.tuple(name, fc.string({ maxLength: 5 })), { maxLength: 6 }),
        (template, pairs) => {
          const map = new Map(pairs);
          // The environment as an ordinary object (like process.env), own keys only from the map.
          const env: Record<string, string> = {};
          for (const [k, v] of map) Object.defineProperty(env, k, { value: v, enumerable: true });
          const got = expandString(template, env);
          expect(got).toEqual(reference(template, map));
        },
      ),
      { numRuns: 10_000 },
    );
  });

  it('env and headers come back as null-prototype maps: a "__proto__" key is just a key', () => {
    const entry = JSON.parse('{"command":"x","env":{"__proto__":"${A}","B":"b"}}');
    const { entry: out } = expandServer(entry, { A: 'a' });
    const env = out.env as Record<string, string>;
    expect(Object.getPrototypeOf(env)).toBeNull();
    expect(Object.keys(env)).toEqual(['__proto__', 'B']);
    expect(Object.getOwnPropertyDescriptor(env, '__proto__')?.value).toBe('a');
  });
});

describe('referencedVariables (issue #10 finding 11)', () => {
  it('lists every variable an entry reads, set or not, with or without a default', () => {
    expect(
      referencedVariables({
        command: '${HOME}/bin/x',
        args: ['--key', '${AWS_SECRET_ACCESS_KEY}', '${HOME}'],
        env: { T: '${TOKEN:-none}' },
        url: 'https://${HOST}/mcp',
        headers: { A: 'Bearer ${GH_TOKEN}' },
      }),
    ).toEqual(['HOME', 'HOST', 'AWS_SECRET_ACCESS_KEY', 'TOKEN', 'GH_TOKEN']);
  });
});

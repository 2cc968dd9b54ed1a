import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastCallToolResult, fastInitializeResult, fastListToolsResult } from './fast-paths.js';
import { InitializeResultSchema } from './schemas/capabilities.js';
import { CallToolResultSchema, ListToolsResultSchema } from './schemas/features.js';

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string() }),
  fc.record({
    type: fc.constant('text'),
    text: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
  }),
  fc.record({
    type: fc.constantFrom('text', 'image', 'bogus'),
    text: fc.string(),
    data: fc.string(),
    mimeType: fc.string(),
  }),
  fc.record({
    type: fc.constant('text'),
    text: fc.string(),
    annotations: fc.record({ priority: fc.oneof(fc.double(), fc.string()) }),
  }),
  fc.anything(),
);
const result = fc.oneof(
  fc.record({ content: fc.array(block, { maxLength: 4 }) }),
  fc.record(
    {
      content: fc.array(block, { maxLength: 4 }),
      isError: fc.oneof(fc.boolean(), fc.string()),
      structuredContent: fc.oneof(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.constant(null),
      ),
      _meta: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.integer()),
      extra: fc.anything(),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
);

describe('fastCallToolResult', () => {
  it('never accepts what the schema rejects, and returns what the schema would', () => {
    fc.assert(
      fc.property(result, (value) => {
        const fast = fastCallToolResult(value);
        if (fast === undefined) return;
        const full = CallToolResultSchema.safeParse(value);
        expect(full.success).toBe(true);
        expect(fast).toEqual(full.data);
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the fast path for the common shape', () => {
    const value = { content: [{ type: 'text', text: 'hi' }], isError: false };
    expect(fastCallToolResult(value)).toBe(value);
    expect(
      fastCallToolResult({ content: [{ type: 'image', data: '', mimeType: 'x' }] }),
    ).toBeUndefined();
  });
});

// Mostly well-formed, sometimes anything at all: both paths get exercised.
const maybe = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 12 }, { arbitrary: fc.anything(), weight: 1 });
const optBool = fc.oneof(fc.boolean(), fc.string(), fc.constant(undefined));
const capabilities = maybe(
  fc.record(
    {
      tools: maybe(fc.record({ listChanged: optBool }, { requiredKeys: [] })),
      resources: maybe(
        fc.record({ subscribe: optBool, listChanged: optBool }, { requiredKeys: [] }),
      ),
      prompts: maybe(fc.record({ listChanged: optBool }, { requiredKeys: [] })),
      logging: maybe(fc.constant({})),
      experimental: maybe(fc.dictionary(fc.string(), maybe(fc.constant({})))),
    },
    { requiredKeys: [] },
  ),
);
const implementation = maybe(
  fc.record(
    {
      name: maybe(fc.string()),
      version: maybe(fc.string()),
      title: maybe(fc.string()),
      icons: fc.anything(),
    },
    { requiredKeys: ['name', 'version'] },
  ),
);
const initialize = maybe(
  fc.record(
    {
      protocolVersion: maybe(fc.constant('2025-11-25')),
      capabilities,
      serverInfo: implementation,
      instructions: maybe(fc.string()),
    },
    { requiredKeys: ['protocolVersion', 'capabilities', 'serverInfo'] },
  ),
);
const schema = maybe(
  fc.record(
    { type: maybe(fc.constant('object')), properties: maybe(fc.constant({})) },
    { requiredKeys: ['type'] },
  ),
);
const tool = maybe(
  fc.record(
    {
      name: maybe(fc.string()),
      inputSchema: schema,
      outputSchema: schema,
      description: maybe(fc.string()),
      annotations: maybe(
        fc.record({ readOnlyHint: optBool, title: maybe(fc.string()) }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: ['name', 'inputSchema'] },
  ),
);
const listTools = maybe(
  fc.record(
    { tools: maybe(fc.array(tool, { maxLength: 3 })), nextCursor: maybe(fc.string()) },
    { requiredKeys: ['tools'] },
  ),
);

describe('an own __proto__ key', () => {
  it('in capabilities.experimental: the fast path leaves the value to the schema', () => {
    const value = JSON.parse(
      '{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"__proto__":{}}},"serverInfo":{"name":"","version":""}}',
    );
    expect(fastInitializeResult(value)).toBeUndefined();
    expect(InitializeResultSchema.safeParse(value).success).toBe(true);
  });
});

describe.each([
  ['fastInitializeResult', fastInitializeResult, InitializeResultSchema, initialize],
  ['fastListToolsResult', fastListToolsResult, ListToolsResultSchema, listTools],
] as const)('%s', (_name, fast, zodSchema, arbitrary) => {
  it('never accepts what the schema rejects, and returns what the schema would', () => {
    let taken = 0;
    fc.assert(
      fc.property(arbitrary as fc.Arbitrary<unknown>, (value) => {
        const quick = (fast as (v: unknown) => unknown)(value);
        if (quick === undefined) return;
        taken++;
        const full = (
          zodSchema as { safeParse: (v: unknown) => { success: boolean; data?: unknown } }
        ).safeParse(value);
        expect(full.success).toBe(true);
        expect(quick).toEqual(full.data);
      }),
      { numRuns: 3000 },
    );
    // The generators must actually exercise the fast path.
    expect(taken).toBeGreaterThan(50);
  });
});

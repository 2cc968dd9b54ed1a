import { describe, expect, it } from 'vitest';
import { AttributeSets, SpanNames } from './attribute-sets.js';

describe('SpanNames', () => {
  it('names a tool call and a prompt by their target, the same string each time', () => {
    const names = new SpanNames();
    const first = names.of('tools/call', 'echo');
    expect(first).toBe('tools/call echo');
    expect(names.of('tools/call', 'echo')).toBe(first);
    expect(names.of('prompts/get', 'echo')).toBe('prompts/get echo');
    expect(names.of('tools/list', undefined)).toBe('tools/list');
  });

  it('stays bounded: past 512 targets a name is still right, only not kept', () => {
    const names = new SpanNames();
    for (let i = 0; i < 600; i++) expect(names.of('tools/call', `t${i}`)).toBe(`tools/call t${i}`);
    expect((names as unknown as { tools: Map<string, string> }).tools.size).toBe(512);
  });
});

describe('AttributeSets', () => {
  it('gives back the set kept for the same values, frozen; other values find none', () => {
    const sets = new AttributeSets();
    const values = ['tools/call', 'echo', undefined, 'pipe'];
    expect(sets.find(values)).toBeUndefined();
    const kept = sets.keep(values, { 'mcp.method.name': 'tools/call' });
    expect(Object.isFrozen(kept)).toBe(true);
    expect(sets.find(['tools/call', 'echo', undefined, 'pipe'])).toBe(kept);
    expect(sets.find(['tools/call', 'echo', undefined, 'tcp'])).toBeUndefined();
    expect(sets.find(['tools/call', 'other', undefined, 'pipe'])).toBeUndefined();
  });

  it('stays bounded: past 512 sets a new one is returned as given and not kept', () => {
    const sets = new AttributeSets();
    for (let i = 0; i < 512; i++) sets.keep(['m', i], { i });
    const extra = { i: 512 };
    expect(sets.keep(['m', 512], extra)).toBe(extra);
    expect(Object.isFrozen(extra)).toBe(false);
    expect(sets.find(['m', 512])).toBeUndefined();
    expect(sets.find(['m', 511])).toEqual({ i: 511 });
  });
});

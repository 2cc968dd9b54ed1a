import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { HOST_NAME_PATTERN, hostName, NameRegistry } from './names.js';

const anyName = fc.string({ minLength: 1, maxLength: 90, unit: 'grapheme' });
const safeName = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);

describe('host names', () => {
  test('every generated name matches ^[A-Za-z0-9_-]{1,64}$ and is stable (10,000 runs)', () => {
    fc.assert(
      fc.property(fc.oneof(safeName, anyName), fc.oneof(safeName, anyName), (server, tool) => {
        const name = hostName(server, tool);
        expect(name).toMatch(HOST_NAME_PATTERN);
        expect(hostName(server, tool)).toBe(name);
      }),
      { numRuns: 10_000 },
    );
  }, 120_000);

  test('distinct pairs never share a name, whatever else is registered (collisions kept; 10,000 runs)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({ server: fc.oneof(safeName, anyName), item: fc.oneof(safeName, anyName) }),
          {
            minLength: 1,
            maxLength: 8,
            selector: (p) => `${p.server}\u0000${p.item}`,
          },
        ),
        (pairs) => {
          const registry = new NameRegistry();
          const collisions = registry.rebuild(pairs);
          const names = pairs.map((p) => registry.nameOf(p.server, p.item)!);
          expect(new Set(names).size).toBe(pairs.length);
          const moved = new Set(
            collisions.map((c) => `${c.kept[1]!.server}\u0000${c.kept[1]!.item}`),
          );
          for (const [i, p] of pairs.entries()) {
            expect(names[i]).toMatch(HOST_NAME_PATTERN);
            expect(registry.resolve(names[i]!)).toEqual(p);
            // Unaffected by the other servers present: the name is the pair's own, unless
            // the pair lost a collision (then it moved and a warning says so).
            if (!moved.has(`${p.server}\u0000${p.item}`))
              expect(names[i]).toBe(hostName(p.server, p.item));
          }
        },
      ),
      { numRuns: 10_000 },
    );
  }, 120_000);

  test('read-file and read_file stay two tools; read.file is mapped and hashed, not merged', () => {
    expect(hostName('fs', 'read-file')).toBe('mcp__fs__read-file');
    expect(hostName('fs', 'read_file')).toBe('mcp__fs__read_file');
    const dotted = hostName('fs', 'read.file');
    expect(dotted).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(hostName('fs', 'read_file'));
  });

  test('a long name keeps a readable prefix and ends in a hash of the original pair', () => {
    const tool = 'create_or_update_a_very_long_descriptive_tool_name_for_pull_requests';
    const name = hostName('github', tool);
    expect(name.length).toBe(64);
    expect(name.startsWith('mcp__github__create_or_update_a_very')).toBe(true);
    expect(name).not.toBe(hostName('github', `${tool}_2`));
  });

  test('ambiguous splits (server "a__b" + "c" vs server "a" + "b__c") get different names', () => {
    expect(hostName('a', 'b__c')).toBe('mcp__a__b__c');
    expect(hostName('a__b', 'c')).not.toBe('mcp__a__b__c');
    expect(hostName('a_', '_b')).not.toBe(hostName('a', '__b'));
  });

  test('a forced collision keeps both tools and reports it', () => {
    // A tool literally named like another's mapped-and-hashed form.
    const taken = hostName('fs', 'read.file');
    const literal = taken.slice('mcp__fs__'.length);
    const registry = new NameRegistry();
    const collisions = registry.rebuild([
      { server: 'fs', item: 'read.file' },
      { server: 'fs', item: literal },
    ]);
    expect(collisions).toHaveLength(1);
    const a = registry.nameOf('fs', 'read.file')!;
    const b = registry.nameOf('fs', literal)!;
    expect(a).not.toBe(b);
    expect(registry.resolve(a)).toEqual({ server: 'fs', item: 'read.file' });
    expect(registry.resolve(b)).toEqual({ server: 'fs', item: literal });
  });

  test('naming options: no prefix and another separator, under the same rules', () => {
    const naming = { prefix: '', separator: '-' };
    expect(hostName('github', 'create_issue', naming)).toBe('github-create_issue');
    expect(hostName('github', 'create_issue', { prefix: '' })).toBe('github__create_issue');
    // A server name holding the separator would not read back: mapped and hashed.
    const dotted = hostName('a-b', 'c', naming);
    expect(dotted).toMatch(HOST_NAME_PATTERN);
    expect(dotted).not.toBe(hostName('a', 'b-c', naming));
    const registry = new NameRegistry(naming);
    registry.rebuild([{ server: 'fs', item: 'read' }]);
    expect(registry.nameOf('fs', 'read')).toBe('fs-read');
  });
});

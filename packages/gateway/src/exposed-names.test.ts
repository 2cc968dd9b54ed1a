import { describe, expect, it } from 'vitest';
import { EXPOSED_NAME_PATTERN, exposedName, nameAll, toolFilter } from './exposed-names.js';

describe('exposedName', () => {
  it('keeps a safe, unambiguous pair as <server>__<tool>', () => {
    expect(exposedName('github', 'create_issue', '__')).toBe('github__create_issue');
    expect(exposedName('fs', 'read-file', '.')).toMatch(EXPOSED_NAME_PATTERN);
  });

  it('maps unsafe or long pairs to safe names with a stable hash, distinct for distinct pairs', () => {
    const a = exposedName('my server', 'read.file', '__');
    const b = exposedName('my server', 'read_file', '__');
    expect(a).toMatch(EXPOSED_NAME_PATTERN);
    expect(a).not.toBe(b);
    expect(exposedName('my server', 'read.file', '__')).toBe(a);
    const long = exposedName('s', 'x'.repeat(100), '__');
    expect(long.length).toBe(64);
    expect(long).toMatch(EXPOSED_NAME_PATTERN);
  });

  it('a server name containing the separator is hashed, so names read back unambiguously', () => {
    expect(exposedName('a__b', 'c', '__')).not.toBe('a__b__c');
    expect(exposedName('a__b', 'c', '__')).not.toBe(exposedName('a', 'b__c', '__'));
  });
});

describe('nameAll', () => {
  it('--no-prefix passes names through; a collision keeps both and is reported', () => {
    const { names, collisions } = nameAll(
      [
        { server: 'one', item: 'echo' },
        { server: 'two', item: 'echo' },
      ],
      { separator: '__', prefix: false },
    );
    expect(names.size).toBe(2);
    expect(names.get('echo')).toEqual({ server: 'one', item: 'echo' });
    expect(collisions).toEqual([
      {
        name: 'echo',
        kept: [
          { server: 'one', item: 'echo' },
          { server: 'two', item: 'echo' },
        ],
      },
    ]);
    for (const name of names.keys()) expect(name).toMatch(EXPOSED_NAME_PATTERN);
  });
});

describe('toolFilter', () => {
  it('allows by pattern, denies with !, deny wins', () => {
    const allow = toolFilter(['github/*', '!github/delete_*', 'echo']);
    expect(allow('github', 'create_issue')).toBe(true);
    expect(allow('github', 'delete_repo')).toBe(false);
    expect(allow('fs', 'echo')).toBe(true);
    expect(allow('fs', 'read')).toBe(false);
    expect(toolFilter([])('any', 'thing')).toBe(true);
    expect(toolFilter(['!crash'])('fault', 'crash')).toBe(false);
    expect(toolFilter(['a.b'])('s', 'aXb')).toBe(false);
  });
});

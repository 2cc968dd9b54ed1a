import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { resolveConfig } from './resolve.js';
import { validateServerEntry } from './validate-entry.js';

describe('user-keyed names (issue #10 finding 10)', () => {
  it('a server named __proto__, constructor or prototype gets a diagnostic instead of vanishing', () => {
    const text =
      '{"mcpServers":{"__proto__":{"command":"a"},"constructor":{"command":"b"},"prototype":{"command":"c"},"ok":{"command":"d"}}}';
    const r = resolveConfig({ sources: [{ scope: 'user', source: 'mcp.json', text }] });
    expect(r.servers.map((s) => s.name)).toEqual(['ok']);
    expect(r.errors.map(formatDiagnostic)).toEqual([
      'mcp.json: mcpServers.__proto__: "__proto__" is a reserved name and cannot be a server name; rename the server',
      'mcp.json: mcpServers.constructor: "constructor" is a reserved name and cannot be a server name; rename the server',
      'mcp.json: mcpServers.prototype: "prototype" is a reserved name and cannot be a server name; rename the server',
    ]);
  });

  it('env and headers keep a "__proto__" key (zod alone dropped it) in null-prototype maps', () => {
    const text =
      '{"mcpServers":{"a":{"command":"x","env":{"__proto__":"v","constructor":"${toString}"}},"h":{"type":"http","url":"https://h.example","headers":{"__proto__":"p"}}}}';
    const r = resolveConfig({ sources: [{ scope: 'user', source: 'u', text }], env: {} });
    const env = (r.servers[0]!.config as { env: Record<string, string> }).env;
    expect(Object.getPrototypeOf(env)).toBeNull();
    expect(Object.entries(env)).toEqual([
      ['__proto__', 'v'],
      ['constructor', '${toString}'],
    ]);
    const headers = (r.servers[1]!.config as { headers: Record<string, string> }).headers;
    expect(Object.entries(headers)).toEqual([['__proto__', 'p']]);
    expect(r.servers[0]!.missingVariables).toEqual(['toString']);
  });

  it('writers refuse a reserved name too (they validate with validateServerEntry)', () => {
    const r = validateServerEntry('constructor', { command: 'x' }, 'server', []);
    expect(r.config).toBeUndefined();
    expect(r.diagnostics[0]?.message).toContain('reserved name');
  });

  it('duplicate keys were silently last-wins: now each is reported with file, key and line', () => {
    const text = [
      '{ "mcpServers": {',
      '  "a": { "command": "first" },',
      '  "a": { "command": "second", "env": { "K": "1", "K": "2" },',
      '         "args": [] }',
      '} }',
    ].join('\n');
    const r = resolveConfig({ sources: [{ scope: 'user', source: '/p/.mcp.json', text }] });
    expect((r.servers[0]!.config as { command: string }).command).toBe('second');
    expect(r.warnings.map(formatDiagnostic)).toEqual([
      '/p/.mcp.json:3:3: mcpServers.a: the key "a" appears more than once; only the last one counts: remove the others',
      '/p/.mcp.json:3:50: mcpServers.a.env.K: the key "K" appears more than once; only the last one counts: remove the others',
    ]);
  });
});

describe('a project entry that replaces the user entry (issue #10 finding 14)', () => {
  it('the resolved server names the user entry it replaces; the dropped one names the project file', () => {
    const r = resolveConfig({
      sources: [
        {
          scope: 'user',
          source: '/home/me/mcp.json',
          value: { mcpServers: { gh: { command: 'mine' } } },
        },
        {
          scope: 'project',
          source: '/repo/.mcp.json',
          value: { mcpServers: { gh: { command: 'theirs' } } },
        },
      ],
    });
    expect(r.servers).toMatchObject([
      {
        name: 'gh',
        scope: 'project',
        status: 'pending-approval',
        replaces: [{ name: 'gh', scope: 'user', source: '/home/me/mcp.json' }],
      },
    ]);
    expect(r.dropped).toMatchObject([
      {
        name: 'gh',
        scope: 'user',
        because: 'overridden',
        by: { scope: 'project', source: '/repo/.mcp.json' },
      },
    ]);
  });
});

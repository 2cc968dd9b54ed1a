import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from './diagnostics.js';
import { type ConfigSource, resolveConfig } from './resolve.js';
import type { ServerConfig } from './schemas.js';
import { approvalRecord } from './signature.js';

const file = (
  scope: ConfigSource['scope'],
  source: string,
  servers: unknown,
  more: Partial<ConfigSource> = {},
): ConfigSource => ({
  scope,
  source,
  value: { mcpServers: servers },
  ...more,
});
const names = (r: ReturnType<typeof resolveConfig>) => r.servers.map((s) => `${s.name}@${s.scope}`);

describe('resolveConfig: precedence', () => {
  it('plugin < user < project < local < dynamic, whole entries replace each other', () => {
    const r = resolveConfig({
      sources: [
        file('dynamic', 'dyn', { d: { command: 'dyn' } }),
        file('local', 'local', {
          c: { command: 'local', env: { A: '1' } },
          d: { command: 'local' },
        }),
        file('project', '/p/.mcp.json', {
          b: { command: 'proj' },
          c: { command: 'proj', args: ['x'] },
        }),
        file('user', 'user', { a: { command: 'user' }, b: { command: 'user' } }),
        file('plugin', 'plugin "p"', { a: { command: 'plugin' } }),
      ],
      approvals: { enableAll: true },
    });
    expect(
      r.servers.map((s) => [s.name, s.scope, (s.config as { command: string }).command]),
    ).toEqual([
      ['a', 'user', 'user'],
      ['b', 'project', 'proj'],
      ['c', 'local', 'local'],
      ['d', 'dynamic', 'dyn'],
    ]);
    // Fields never merge: the local "c" has no args from the project "c".
    expect(r.servers[2]!.config).toEqual({ type: 'stdio', command: 'local', env: { A: '1' } });
    const overridden = r.dropped.filter((d) => d.because === 'overridden');
    expect(overridden.map((d) => `${d.name}@${d.scope}→${d.by?.scope}`).sort()).toEqual([
      'a@plugin→user',
      'b@user→project',
      'c@project→local',
      'd@local→dynamic',
    ]);
  });

  it('among project files the one closer to the working directory wins', () => {
    const r = resolveConfig({
      sources: [
        file('project', '/repo/.mcp.json', { s: { command: 'outer' } }, { depth: 2 }),
        file('project', '/repo/a/b/.mcp.json', { s: { command: 'inner' } }, { depth: 0 }),
        file('project', '/repo/a/.mcp.json', { s: { command: 'middle' } }, { depth: 1 }),
      ],
      approvals: { enableAll: true },
    });
    expect(r.servers[0]!.source).toBe('/repo/a/b/.mcp.json');
  });

  it('a managed file is exclusive: every other scope is dropped', () => {
    const r = resolveConfig({
      sources: [
        file('managed', '/etc/mcpkit/managed-mcp.json', { corp: { command: 'corp' } }),
        file('user', 'user', { mine: { command: 'mine' } }),
        file('dynamic', 'dyn', { dyn: { command: 'dyn' } }),
      ],
    });
    expect(names(r)).toEqual(['corp@managed']);
    expect(r.dropped.map((d) => `${d.name}:${d.because}`).sort()).toEqual([
      'dyn:managed-exclusive',
      'mine:managed-exclusive',
    ]);
  });

  it('strict mode uses only dynamic sources', () => {
    const r = resolveConfig({
      strict: true,
      sources: [
        file('user', 'user', { u: { command: 'u' } }),
        file('dynamic', 'dyn', { d: { command: 'd' } }),
      ],
    });
    expect(names(r)).toEqual(['d@dynamic']);
    expect(r.dropped[0]).toMatchObject({ name: 'u', because: 'strict' });
  });

  it('later dynamic configs win over earlier ones', () => {
    const r = resolveConfig({
      sources: [
        file('dynamic', 'second', { s: { command: 'two' } }, { order: 1 }),
        file('dynamic', 'first', { s: { command: 'one' } }, { order: 0 }),
      ],
    });
    expect((r.servers[0]!.config as { command: string }).command).toBe('two');
  });
});

describe('resolveConfig: expansion', () => {
  const env = { HOME: '/home/me', TOKEN: 'secret', EMPTY: '' };
  it('expands ${VAR} and ${VAR:-default} in command, args, env, url and headers', () => {
    const r = resolveConfig({
      env,
      sources: [
        file('user', 'user', {
          s: {
            command: '${HOME}/bin/server',
            args: ['--port', '${PORT:-8080}', '${EMPTY:-fallback}'],
            env: { KEY: '${TOKEN}' },
          },
          h: {
            type: 'http',
            url: 'https://${HOST:-api.example.com}/mcp',
            headers: { Authorization: 'Bearer ${TOKEN}' },
          },
        }),
      ],
    });
    expect(r.servers.find((s) => s.name === 's')!.config).toEqual({
      type: 'stdio',
      command: '/home/me/bin/server',
      args: ['--port', '8080', 'fallback'],
      env: { KEY: 'secret' },
    });
    expect(r.servers.find((s) => s.name === 'h')!.config).toMatchObject({
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer secret' },
    });
    expect(r.warnings).toEqual([]);
  });

  it('a missing variable without default stays as written and is reported with its location', () => {
    const r = resolveConfig({
      env,
      sources: [file('user', '/u/mcp.json', { s: { command: 'x', args: ['a', '${MISSING}'] } })],
    });
    expect((r.servers[0]!.config as { args: string[] }).args).toEqual(['a', '${MISSING}']);
    expect(r.servers[0]!.missingVariables).toEqual(['MISSING']);
    expect(r.warnings.map(formatDiagnostic)).toEqual([
      '/u/mcp.json: mcpServers.s.args[1]: ${MISSING} is not set and has no default; left as written',
    ]);
  });
});

describe('resolveConfig: de-duplication', () => {
  it('manual entries win over plugin and connector entries for the same server', () => {
    const r = resolveConfig({
      sources: [
        file('user', 'user', { github: { type: 'http', url: 'https://api.example.com/mcp/' } }),
        file('plugin', 'plugin "gh"', {
          'gh-plugin': { type: 'http', url: 'https://API.example.com/mcp' },
        }),
        file('connector', 'connectors', {
          'gh-connector': {
            type: 'proxy',
            id: 'c1',
            url: 'https://proxy.example/x?url=https%3A%2F%2Fapi.example.com%2Fmcp',
          },
        }),
        file('user', 'user2', { fs: { command: 'npx', args: ['server-fs', '/tmp'] } }),
        file('plugin', 'plugin "fs"', {
          'fs-plugin': { command: 'npx', args: ['server-fs', '/tmp'] },
        }),
      ],
    });
    expect(names(r)).toEqual(['fs@user', 'github@user']);
    const dups = r.dropped.filter((d) => d.because === 'duplicate');
    expect(dups.map((d) => `${d.name}→${d.by?.name}`).sort()).toEqual([
      'fs-plugin→fs',
      'gh-connector→github',
      'gh-plugin→github',
    ]);
  });

  it('two manual entries for the same server are both kept', () => {
    const r = resolveConfig({
      sources: [
        file('user', 'u', { a: { command: 'x' } }),
        file('dynamic', 'd', { b: { command: 'x' } }),
      ],
    });
    expect(names(r)).toEqual(['a@user', 'b@dynamic']);
  });
});

describe('resolveConfig: policy', () => {
  const servers = {
    gh: { type: 'http', url: 'https://api.github.example/mcp' },
    fs: { command: 'npx', args: ['-y', 'server-fs'] },
    evil: { command: 'curl', args: ['x'] },
    inproc: { type: 'sdk', name: 'builtin' },
  };
  const run = (policy: Parameters<typeof resolveConfig>[0]['policy']) =>
    Object.fromEntries(
      resolveConfig({
        sources: [file('user', 'u', servers)],
        ...(policy ? { policy } : {}),
      }).servers.map((s) => [s.name, s.status]),
    );

  it('an absent allow list allows everything; an empty one nothing', () => {
    expect(run(undefined)).toEqual({
      evil: 'enabled',
      fs: 'enabled',
      gh: 'enabled',
      inproc: 'enabled',
    });
    expect(run({ allowedMcpServers: [] })).toEqual({
      evil: 'blocked',
      fs: 'blocked',
      gh: 'blocked',
      inproc: 'blocked',
    });
  });

  it('deny wins over allow, by name, command or URL', () => {
    expect(
      run({
        allowedMcpServers: [{ serverName: 'evil' }],
        deniedMcpServers: [{ serverName: 'evil' }],
      }).evil,
    ).toBe('blocked');
    expect(run({ deniedMcpServers: [{ serverCommand: ['curl', 'x'] }] })).toMatchObject({
      evil: 'blocked',
      fs: 'enabled',
    });
    expect(run({ deniedMcpServers: [{ serverUrl: 'https://*.github.example' }] })).toMatchObject({
      gh: 'blocked',
      fs: 'enabled',
    });
  });

  it('command entries: stdio servers must match one exactly (argv), a name entry is not enough', () => {
    const r = run({
      allowedMcpServers: [
        { serverCommand: ['npx', '-y', 'server-fs'] },
        { serverName: 'evil' },
        { serverName: 'gh' },
      ],
    });
    expect(r).toEqual({ fs: 'enabled', evil: 'blocked', gh: 'enabled', inproc: 'blocked' });
    expect(run({ allowedMcpServers: [{ serverCommand: ['npx', 'server-fs'] }] }).fs).toBe(
      'blocked',
    );
  });

  it('URL entries: wildcards, case-insensitive host, no path matches any path', () => {
    expect(run({ allowedMcpServers: [{ serverUrl: 'https://API.GITHUB.example' }] }).gh).toBe(
      'enabled',
    );
    expect(run({ allowedMcpServers: [{ serverUrl: 'https://*.example/*' }] }).gh).toBe('enabled');
    expect(run({ allowedMcpServers: [{ serverUrl: 'https://api.github.example/other' }] }).gh).toBe(
      'blocked',
    );
    expect(run({ allowedMcpServers: [{ serverUrl: 'http://api.github.example' }] }).gh).toBe(
      'blocked',
    );
  });

  it('values are expanded before matching, and every decision explains itself', () => {
    const r = resolveConfig({
      env: { BIN: 'curl' },
      sources: [file('user', 'u', { x: { command: '${BIN}', args: ['x'] } })],
      policy: {
        deniedMcpServers: [{ serverCommand: ['curl', 'x'] }],
        source: '/etc/mcpkit/managed-settings.json',
      },
    });
    expect(r.servers[0]!.status).toBe('blocked');
    expect(r.servers[0]!.reason).toBe(
      'blocked by policy: denied by deniedMcpServers[0] (serverCommand ["curl","x"]) in /etc/mcpkit/managed-settings.json',
    );
  });
});

describe('resolveConfig: approvals and status', () => {
  const sources = [
    file('project', '/p/.mcp.json', {
      a: { command: 'a' },
      b: { command: 'b' },
      c: { command: 'c' },
    }),
  ];
  const status = (approvals?: object) =>
    resolveConfig({ sources, ...(approvals ? { approvals } : {}) }).servers.map(
      (s) => `${s.name}:${s.status}`,
    );
  const record = (command: string, file = '/p/.mcp.json') =>
    approvalRecord({ type: 'stdio', command } as ServerConfig, file);
  it('project servers are pending until approved; rejection sticks', () => {
    expect(status()).toEqual(['a:pending-approval', 'b:pending-approval', 'c:pending-approval']);
    expect(status({ servers: { a: record('a') }, rejected: ['b'] })).toEqual([
      'a:enabled',
      'b:rejected',
      'c:pending-approval',
    ]);
    expect(
      status({ servers: { a: record('a'), b: record('b'), c: record('c') }, rejected: ['c'] }),
    ).toEqual(['a:enabled', 'b:enabled', 'c:rejected']);
  });

  it('an approval is bound to the entry: a changed command or another file is pending again, and says why', () => {
    const r = resolveConfig({
      sources,
      approvals: {
        servers: { a: record('a-old'), b: record('b', '/other/.mcp.json'), c: record('c') },
      },
    });
    expect(r.servers.map((s) => [s.name, s.status, s.reason])).toEqual([
      ['a', 'pending-approval', expect.stringContaining('changed since approved: command')],
      ['b', 'pending-approval', expect.stringContaining('changed since approved: file')],
      ['c', 'enabled', 'project server approved'],
    ]);
  });

  it('old name-only approvals (approved names, enableAll) no longer count', () => {
    const r = resolveConfig({ sources, approvals: { approved: ['a'], enableAll: true } });
    expect(r.servers.map((s) => s.status)).toEqual([
      'pending-approval',
      'pending-approval',
      'pending-approval',
    ]);
    expect(r.servers[0]!.reason).toContain('approved by name only');
  });

  it('disabled entries are kept but disabled', () => {
    const r = resolveConfig({
      sources: [file('user', 'u', { a: { command: 'a', disabled: true } })],
    });
    expect(r.servers[0]!.status).toBe('disabled');
  });
});

describe('resolveConfig: errors that help', () => {
  it('one bad entry never hides the others; each error names the file, the JSON path and the problem', () => {
    const r = resolveConfig({
      sources: [
        file('user', '.mcp.json', {
          good: { command: 'ok' },
          github: { type: 'http', url: 42 },
          remote: { url: 'https://x.example/mcp' },
          weird: { type: 'carrier-pigeon' },
          empty: { command: '' },
          'bad name': { command: 'x' },
          extra: { command: 'x', description: 'not ours' },
        }),
      ],
    });
    expect(names(r)).toEqual(['extra@user', 'good@user']);
    expect(r.errors.map(formatDiagnostic)).toEqual([
      '.mcp.json: mcpServers.github.url: expected a URL',
      '.mcp.json: mcpServers.remote.type: a server with a "url" needs a "type": add "type": "http" (or "sse", "ws")',
      '.mcp.json: mcpServers.weird.type: unknown type "carrier-pigeon"; expected one of stdio, sse, http, streamable-http, ws, sse-ide, ws-ide, sdk, proxy',
      '.mcp.json: mcpServers.empty.command: expected a non-empty command',
      '.mcp.json: mcpServers["bad name"]: server names may contain only letters, digits, "-" and "_"',
    ]);
    expect(r.warnings.map(formatDiagnostic)).toEqual([
      '.mcp.json: mcpServers.extra.description: unknown field for a "stdio" server; ignored',
    ]);
  });

  it('malformed JSON gives line and column; comments and trailing commas are fine', () => {
    const ok = resolveConfig({
      sources: [
        {
          scope: 'user',
          source: 'u.json',
          text: '{\n // servers\n "mcpServers": { "a": { "command": "x", }, },\n}',
        },
      ],
    });
    expect(names(ok)).toEqual(['a@user']);
    const bad = resolveConfig({
      sources: [
        {
          scope: 'user',
          source: 'u.json',
          text: '{\n  "mcpServers": {\n    "a": { "command" "x" }\n  }\n}',
        },
      ],
    });
    expect(bad.errors.map(formatDiagnostic)).toEqual(['u.json:3:22: not valid JSON: expected ":"']);
  });

  it('remote types validate their URLs; oauth metadata must be https', () => {
    const r = resolveConfig({
      sources: [
        file('user', 'u', {
          a: { type: 'ws', url: 'https://not-ws.example' },
          b: {
            type: 'sse',
            url: 'https://ok.example/sse',
            oauth: { authServerMetadataUrl: 'http://insecure.example' },
          },
          c: {
            type: 'streamable-http',
            url: 'https://ok.example/mcp',
            oauth: { clientId: 'abc', scopes: ['read'], xaa: true },
          },
        }),
      ],
    });
    expect(r.errors.map(formatDiagnostic)).toEqual([
      'u: mcpServers.a.url: expected a ws(s) URL',
      'u: mcpServers.b.oauth.authServerMetadataUrl: must be an https URL',
    ]);
    expect(names(r)).toEqual(['c@user']);
  });
});

describe('resolveConfig: properties', () => {
  const scopes = ['plugin', 'user', 'project', 'local', 'dynamic', 'connector'] as const;
  it('never throws on arbitrary JSON input', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            scope: fc.constantFrom(...scopes, 'managed'),
            value: fc.jsonValue(),
            text: fc.option(fc.string()),
          }),
          {
            maxLength: 5,
          },
        ),
        fc.dictionary(fc.string(), fc.string()),
        (raw, env) => {
          const sources = raw.map((r, i) => ({
            scope: r.scope,
            source: `s${i}`,
            ...(r.text === null ? { value: r.value } : { text: r.text }),
          }));
          expect(() => resolveConfig({ sources, env })).not.toThrow();
          const withServers = raw.map((r, i) => ({
            scope: r.scope,
            source: `t${i}`,
            value: { mcpServers: r.value },
          }));
          expect(() => resolveConfig({ sources: withServers, env })).not.toThrow();
        },
      ),
    );
  });

  it('precedence is deterministic whatever order the files are read in', () => {
    const entry = fc.record({
      command: fc.constantFrom('a', 'b', 'c'),
      args: fc.array(fc.constantFrom('x', 'y'), { maxLength: 2 }),
    });
    const source = fc.record({
      scope: fc.constantFrom(...scopes),
      depth: fc.nat(3),
      servers: fc.dictionary(fc.constantFrom('s1', 's2', 's3'), entry, { maxKeys: 3 }),
    });
    fc.assert(
      fc.property(fc.array(source, { maxLength: 6 }), fc.integer(), (list, seed) => {
        const sources = list.map((s, i) =>
          file(s.scope, `file-${i}`, s.servers, { depth: s.depth, order: i }),
        );
        const shuffled = [...sources].sort(
          (a, b) => (((a.source.length * 31 + seed) ^ b.source.charCodeAt(5)) % 3) - 1,
        );
        const a = resolveConfig({ sources, approvals: { enableAll: true } });
        const b = resolveConfig({ sources: shuffled, approvals: { enableAll: true } });
        expect(b.servers).toEqual(a.servers);
      }),
    );
  });
});

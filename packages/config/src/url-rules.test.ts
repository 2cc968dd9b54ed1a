import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluatePolicy, type Policy } from './policy.js';
import { parsePolicyFile } from './policy-file.js';
import type { ServerConfig } from './schemas.js';
import { parseUrlRule, urlMatches } from './url-rules.js';

const http = (url: string) => ({ type: 'http', url }) as ServerConfig;
const decide = (url: string, policy: Policy) => evaluatePolicy('s', http(url), policy);

const DENY: Policy = { deniedMcpServers: [{ serverUrl: 'http://127.0.0.1:18081/*' }] };
const DENY_HTTPS: Policy = { deniedMcpServers: [{ serverUrl: 'https://evil.example/*' }] };
const ALLOW: Policy = { allowedMcpServers: [{ serverUrl: 'http://*.corp.example' }] };

describe('URL rules compare parsed URLs (issue #10 finding 2)', () => {
  // Each spelling reached the denied listener before: the rule compared strings.
  it.each([
    'http://u@127.0.0.1:18081/mcp',
    'http://127.0.0.%31:18081/mcp',
    'http://127.0.0.1:18081\\mcp',
    'http://127.0.0.1:18081',
    'http://2130706433:18081/mcp',
    'http://127.0.0.1.:18081/mcp',
    'http://127.0.\t0.1:18081/mcp',
    'http://127．0．0．1:18081/mcp',
    'HTTP://127.0.0.1:18081/MCP',
    'http://0x7f000001:18081/mcp',
    'http://0177.0.0.1:18081/mcp',
    'http://127.1:18081/mcp',
    'http:\\\\127.0.0.1:18081/mcp',
  ])('deny http://127.0.0.1:18081/* blocks %j', (url) => {
    expect(decide(url, DENY).allowed).toBe(false);
  });

  it.each([
    'https://evil.example:443/mcp',
    'https://evil.example./mcp',
    'https://EVIL.example/mcp',
    'https://evil\t.example/mcp',
    'https://evil．example/mcp',
    'https://%65vil.example/mcp',
    'https://ｅｖｉｌ.example/mcp',
    'https://evil.example',
  ])('deny https://evil.example/* blocks %j', (url) => {
    expect(decide(url, DENY_HTTPS).allowed).toBe(false);
  });

  it('allow http://*.corp.example no longer admits a URL that goes to 127.0.0.1', () => {
    const url = 'http://127.0.0.1:18081\\@mcp.corp.example/mcp';
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(decide(url, ALLOW).allowed).toBe(false);
    expect(decide('http://mcp.corp.example/mcp', ALLOW).allowed).toBe(true);
    expect(decide('http://MCP.Corp.Example./x', ALLOW).allowed).toBe(true);
    expect(decide('http://corp.example.evil.example/mcp', ALLOW).allowed).toBe(false);
    expect(decide('http://mcp.corp.example:8080/mcp', ALLOW).allowed).toBe(false);
  });

  it('a server URL with user info is refused, with a reason that hides the password', () => {
    const d = decide('https://alice:s3cret@api.example/mcp', {});
    expect(d.allowed).toBe(false);
    expect(d.reason).toContain('user info');
    expect(d.reason).toContain('https://***:***@api.example/mcp');
    expect(d.reason).not.toContain('s3cret');
  });

  it('rules: ports (default, explicit, any), paths, no scheme; a bad rule in a file fails closed', () => {
    expect(urlMatches('https://h.example', 'https://h.example:443/any/path')).toBe(true);
    expect(urlMatches('https://h.example', 'https://h.example:8443/')).toBe(false);
    expect(urlMatches('https://h.example:*', 'https://h.example:8443/')).toBe(true);
    expect(urlMatches('https://h.example/mcp', 'https://h.example/mcp')).toBe(true);
    expect(urlMatches('https://h.example/mcp', 'https://h.example/%6Dcp')).toBe(true);
    expect(urlMatches('https://h.example/mcp', 'https://h.example/a/../mcp')).toBe(true);
    expect(urlMatches('https://h.example/mcp', 'https://h.example/other')).toBe(false);
    expect(urlMatches('https://h.example/api/*', 'https://h.example/api/v1/mcp')).toBe(true);
    expect(urlMatches('h.example', 'ws://h.example:9000/')).toBe(true);
    expect(urlMatches('http://h.example', 'https://h.example/')).toBe(false);
    expect(parseUrlRule('http://[::1')).toHaveProperty('error');
    const file = parsePolicyFile(
      '{"deniedMcpServers":[{"serverUrl":"http://[::1"}]}',
      'settings.json',
    );
    expect(file.unusable).toContain('settings.json');
    expect(file.policy).toBeUndefined();
  });
});

// Spellings of one host: what the WHATWG parser folds together.
const LOOPBACK = [
  '127.0.0.1',
  '127.0.0.%31',
  '2130706433',
  '0x7f000001',
  '0x7F.0.0.1',
  '0177.0.0.1',
  '127.1',
  '127.0.1',
  '127.0.0.1.',
  '127．0．0．1',
  '127。0。0。1',
];
const EVIL = [
  'evil.example',
  'EVIL.example',
  'evil.example.',
  '%65vil.example',
  'ｅｖｉｌ.example',
  'evil．example',
  'xn--evil-.example',
];
const OTHER = [
  '127.0.0.2',
  'localhost',
  'mcp.corp.example',
  'a.b.corp.example',
  'corp.example',
  'good.example',
  '[::1]',
];

/** Inserts tabs and newlines (which the parser strips) at the given positions. */
function sprinkle(text: string, at: number[]): string {
  let out = text;
  for (const i of at) {
    const p = i % (out.length + 1);
    out = `${out.slice(0, p)}${i % 2 ? '\t' : '\n'}${out.slice(p)}`;
  }
  return out;
}

const spelling = fc
  .record({
    scheme: fc.constantFrom('http', 'HTTP', 'Http', 'https', 'hTTps'),
    slashes: fc.constantFrom('//', '\\\\', '/\\', '///', ''),
    userinfo: fc.constantFrom('', 'u@', 'u:p@', 'user%40x:pw@', '@'),
    host: fc.constantFrom(...LOOPBACK, ...EVIL, ...OTHER),
    port: fc.constantFrom('', ':18081', ':80', ':443', ':0080', ':18082', ':00443'),
    path: fc.constantFrom(
      '',
      '/',
      '/mcp',
      '\\mcp',
      '/%6Dcp',
      '/a/../mcp',
      '/mcp?x=1',
      '#f',
      '\\@mcp.corp.example/mcp',
    ),
    noise: fc.array(fc.nat(80), { maxLength: 3 }),
  })
  .map((r) =>
    sprinkle(`${r.scheme}:${r.slashes}${r.userinfo}${r.host}${r.port}${r.path}`, r.noise),
  );

/** Where the transport would connect, by the parser alone. */
function target(url: string): { scheme: string; host: string; port: string } | undefined {
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return { scheme: u.protocol, host: u.hostname.replace(/\.$/, ''), port };
  } catch {
    return undefined;
  }
}

describe('URL rules: property over generated spellings', () => {
  it('whatever host new URL(u) would send to, a URL whose parsed origin is denied is never allowed', () => {
    const policy: Policy = {
      deniedMcpServers: [
        { serverUrl: 'http://127.0.0.1:18081/*' },
        { serverUrl: 'https://evil.example' },
        { serverUrl: 'http://evil.example:*' },
      ],
    };
    fc.assert(
      fc.property(spelling, (url) => {
        const t = target(url);
        const decision = decide(url, policy);
        if (!t || !decision.allowed) return;
        const denied =
          (t.scheme === 'http:' && t.host === '127.0.0.1' && t.port === '18081') ||
          (t.scheme === 'https:' && t.host === 'evil.example' && t.port === '443') ||
          (t.scheme === 'http:' && t.host === 'evil.example');
        expect(denied, `${JSON.stringify(url)} → ${JSON.stringify(t)}`).toBe(false);
        expect(new URL(url).username + new URL(url).password).toBe('');
      }),
      { numRuns: 10_000 },
    );
  });

  it('an allow list of http://*.corp.example admits only URLs the parser sends to a corp.example host on port 80', () => {
    fc.assert(
      fc.property(spelling, (url) => {
        const t = target(url);
        if (!decide(url, ALLOW).allowed) return;
        expect(t).toBeDefined();
        expect(t!.scheme).toBe('http:');
        expect(t!.host.endsWith('.corp.example')).toBe(true);
        expect(t!.port).toBe('80');
      }),
      { numRuns: 10_000 },
    );
  });
});

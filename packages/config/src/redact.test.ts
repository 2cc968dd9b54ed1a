import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isCredentialName,
  redactServerConfig,
  redactUrl,
  scrubSecrets,
  secretValues,
} from './redact.js';
import type { ServerConfig } from './schemas.js';

describe('redactUrl', () => {
  it.each([
    [
      'https://user:PASS@api.example/mcp?api_key=K3Y&x=1',
      'https://***:***@api.example/mcp?api_key=***&x=1',
    ],
    ['https://tok3n@api.example/mcp', 'https://***@api.example/mcp'],
    ['https://api.example/mcp', 'https://api.example/mcp'],
    ['https://api.example/mcp?flag&k=', 'https://api.example/mcp?***&k='],
    ['https://api.example/mcp?%74oken=abc&sig=x', 'https://api.example/mcp?%74oken=***&sig=***'],
    [
      'https://h.example/app?selectedSnapshot=login_screen.png&page=2',
      'https://h.example/app?selectedSnapshot=login_screen.png&page=2',
    ],
    ['https://${USER}:${PASS}@h.example/mcp?key=${KEY}', 'https://***:***@h.example/mcp?key=***'],
    ['http://u:p@127.0.0.1:1\\@evil.example/mcp', 'http://***:***@127.0.0.1:1\\@evil.example/mcp'],
    ['http:u:p@h.example/x', 'http:***:***@h.example/x'],
    [
      'https://h.example/cb#access_token=abc&state=s',
      'https://h.example/cb#access_token=***&state=s',
    ],
    ['https://h.example/docs#intro', 'https://h.example/docs#intro'],
    ['not a url', 'not a url'],
    ['', ''],
    ['/relative/path?x=1', '/relative/path?x=1'],
  ])('%s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });

  it('hides exactly what the WHATWG parser would take as user info and credential query values', () => {
    const piece = fc.string({
      unit: fc.constantFrom('a', 'b', ':', '@', '/', '\\', '?', '#', '&', '=', '%', '\t', '.', '1'),
    });
    fc.assert(
      fc.property(
        fc.constantFrom('http:', 'https:', 'ws:', 'wss:', 'ftp:', 'mcp+x:', 'foo:'),
        fc.constantFrom('', '/', '//', '\\\\', '/\\'),
        piece,
        fc.constantFrom('h.example', '127.0.0.1:8080', '[::1]'),
        piece,
        (scheme, slashes, userinfo, host, tail) => {
          const input = `${scheme}${slashes}${userinfo}@${host}${tail}`;
          let original: URL;
          try {
            original = new URL(input);
          } catch {
            return;
          }
          const redacted = new URL(redactUrl(input));
          for (const part of ['username', 'password'] as const)
            expect(['', '***']).toContain(redacted[part]);
          if (original.username !== '') expect(redacted.username).toBe('***');
          if (original.password !== '') expect(redacted.password).toBe('***');
          expect(redacted.host).toBe(original.host);
          // No key this alphabet makes names a credential: a keyed value stays, a bare one
          // (all value, no key) is hidden.
          const kept = [...original.searchParams];
          [...redacted.searchParams].forEach(([key, value], i) => {
            expect(isCredentialName(key)).toBe(false);
            if (key !== '***') expect(value).toBe(kept[i]![1]);
          });
          expect(redactUrl(redactUrl(input))).toBe(redactUrl(input));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('a string that is not a URL comes back unchanged', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters URL parsing trims
        if (/^[\u0000-\u0020]*[A-Za-z][A-Za-z0-9+.-]*:/.test(s.replace(/[\t\n\r]/g, ''))) return;
        expect(redactUrl(s)).toBe(s);
      }),
    );
  });
});

describe('redactServerConfig', () => {
  it('hides header values, credential env values, URL secrets and secret-like fields; keeps names, args and headersHelper', () => {
    const http = {
      type: 'http',
      url: 'https://me:hunter22@api.example/mcp?token=abcd',
      headers: { Authorization: 'Bearer sk-live-1', 'X-Team': 'blue' },
      headersHelper: 'get-headers --team blue',
      oauth: { clientId: 'cid', clientSecret: 's3cret!', scopes: ['a'] },
    } as ServerConfig;
    expect(redactServerConfig(http)).toEqual({
      type: 'http',
      url: 'https://***:***@api.example/mcp?token=***',
      headers: { Authorization: '***', 'X-Team': '***' },
      headersHelper: 'get-headers --team blue',
      oauth: { clientId: 'cid', clientSecret: '***', scopes: ['a'] },
    });
    const stdio = {
      type: 'stdio',
      command: 'srv',
      args: ['--x'],
      env: { API_KEY: 'k-123456', NODE_ENV: 'production', LOG_LEVEL: 'info' },
    } as ServerConfig;
    expect(redactServerConfig(stdio)).toEqual({
      type: 'stdio',
      command: 'srv',
      args: ['--x'],
      env: { API_KEY: '***', NODE_ENV: 'production', LOG_LEVEL: 'info' },
    });
    const ide = {
      type: 'ws-ide',
      url: 'ws://127.0.0.1:1',
      ideName: 'x',
      authToken: 'ide-token',
    } as ServerConfig;
    expect(redactServerConfig(ide)).toMatchObject({ authToken: '***' });
    // The input is not changed.
    expect((http as { headers: Record<string, string> }).headers.Authorization).toBe(
      'Bearer sk-live-1',
    );
  });

  it('no generated secret survives in the JSON of the redacted entry', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9_\-.~!$'()*+,;]{4,20}$/).map((s) => `S3C${s}`);
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.stringMatching(/^[A-Z_]{1,8}$/).map((k) => `${k}_TOKEN`),
          secret,
        ),
        fc.dictionary(fc.stringMatching(/^[A-Za-z-]{1,8}$/), secret),
        secret,
        secret,
        (env, headers, password, query) => {
          const configs = [
            { type: 'stdio', command: 'srv', env } as ServerConfig,
            {
              type: 'http',
              url: `https://user:${encodeURIComponent(password)}@h.example/mcp?api_key=${encodeURIComponent(query)}`,
              headers,
            } as ServerConfig,
          ];
          for (const config of configs) {
            const printed = JSON.stringify(redactServerConfig(config));
            for (const s of [...Object.values(env), ...Object.values(headers), password, query])
              expect(printed).not.toContain(s);
          }
        },
      ),
    );
  });
});

describe('isCredentialName', () => {
  it.each([
    'API_TOKEN',
    'GITHUB_PERSONAL_ACCESS_TOKEN',
    'api_key',
    'apiKey',
    'DB_PASSWORD',
    'DB_PASS',
    'CLIENT_SECRET',
    'AWS_SECRET_ACCESS_KEY',
    'Authorization',
    'COOKIE',
    'credentials',
    'sig',
    'session_id',
    'PRIVATE_KEY_PATH',
  ])('%s names a credential', (name) => expect(isCredentialName(name)).toBe(true));
  it.each([
    'NODE_ENV',
    'LOG_LEVEL',
    'ALLOW_DANGEROUS',
    'TINY_MODE',
    'X',
    'selectedSnapshot',
    'page',
    'PATH',
    'HOME',
    'DEBUG',
  ])('%s does not', (name) => expect(isCredentialName(name)).toBe(false));
});

describe('secretValues and scrubSecrets', () => {
  it('lists header values, credential env values, URL password and credential query values of length >= 4, longest first', () => {
    const config = {
      type: 'http',
      url: 'https://me:p%40ss@h.example/mcp?api_key=KEY123&v=1',
      headers: { Authorization: 'Bearer abcdef' },
    } as ServerConfig;
    expect(secretValues(config)).toEqual(['Bearer abcdef', 'KEY123', 'p%40ss', 'p@ss']);
    expect(
      secretValues({
        type: 'stdio',
        command: 'x',
        env: { A_KEY: 'abc', B_KEY: 'abcd', NODE_ENV: 'production' },
      } as ServerConfig),
    ).toEqual(['abcd']);
  });

  it('scrubs every secret from free text and from JSON, where quotes and backslashes are escaped', () => {
    const secret = 'pa"ss\\word';
    const text = `failed: ${secret}; json: ${JSON.stringify({ v: secret })}`;
    expect(scrubSecrets(text, [secret])).toBe('failed: ***; json: {"v":"***"}');
    fc.assert(
      fc.property(
        fc.string({ minLength: 4 }).filter((s) => !s.includes('*')),
        fc.string(),
        fc.string(),
        (s, before, after) => {
          expect(scrubSecrets(`${before}${s}${after}`, [s])).not.toContain(s);
        },
      ),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { browserCommand, openInBrowser } from './browser-opener.js';
import { checkEndpoint, isLoopbackHost } from './endpoint.js';
import { UnsafeEndpointError } from './errors.js';

const source = { label: 'server "t"', field: 'token_endpoint', where: 'the test' };
const refusal = (value: unknown) => {
  try {
    checkEndpoint(value, source);
  } catch (error) {
    if (UnsafeEndpointError.isInstance(error)) return error.message;
    throw error;
  }
  return undefined;
};

describe('the endpoint rule', () => {
  it('accepts https anywhere and http on loopback hosts, in every spelling the parser gives them', () => {
    for (const ok of [
      'https://as.example/token',
      'https://as.example:8443/t?x=1',
      'http://127.0.0.1:8080/token',
      'http://127.1/token',
      'http://2130706433/token',
      'http://127.255.0.9/token',
      'http://localhost:3000/token',
      'http://[::1]:9000/token',
    ])
      expect(refusal(ok), ok).toBeUndefined();
    expect(checkEndpoint('http://2130706433/t', source).hostname).toBe('127.0.0.1');
  });

  it('refuses other schemes, remote http, user info, fragments and characters a URL must escape', () => {
    const cases: Array<[unknown, string]> = [
      ['file:///etc/passwd', 'scheme "file"'],
      ['javascript:alert(1)', 'scheme "javascript"'],
      ['ftp://as.example/', 'scheme "ftp"'],
      ['http://as.example/t', 'plain http to as.example'],
      ['http://127.0.0.1.evil.example/t', 'plain http to 127.0.0.1.evil.example'],
      ['http://[::2]/t', 'plain http to [::2]'],
      ['http://0.0.0.0/t', 'plain http to 0.0.0.0'],
      ['https://u:p@as.example/t', 'user info'],
      ['https://u@as.example/t', 'user info'],
      ['https://as.example/t#frag', 'fragment'],
      ['https://as.example/a b', 'a space'],
      ['https://as.example/a|b', 'the character "|"'],
      ['https://as.example/a"b', 'a double quote'],
      ['https://as.example/a\nb', 'a control character'],
      ['https://as.example/a\\b', 'a backslash'],
      ['https://аs.example/', 'the character "а"'],
      ['https://as.example/a^b', 'the character "^"'],
      ['relative/path', 'is not a URL'],
      ['', 'is empty'],
      [null, 'is not a string'],
      [`https://as.example/${'a'.repeat(3000)}`, 'longer than 2048'],
    ];
    for (const [value, why] of cases) expect(refusal(value), String(value)).toContain(why);
  });

  it('names the server, the field and where the value came from', () => {
    expect(refusal('file:///x')).toBe(
      'server "t": token_endpoint "file:///x" from the test has the scheme "file", and only https (or http to this machine) is used; refusing to use it. The server\'s authorization setup is broken or hostile: ask its operator to fix it',
    );
  });

  it('isLoopbackHost takes parsed host names only', () => {
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('localhost.example')).toBe(false);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
  });
});

describe('the browser opener', () => {
  const url = 'https://as.example/authorize?a=1&b=2';
  it('is a program with the URL as one argument, on every platform', () => {
    expect(browserCommand(url, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(browserCommand(url, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(browserCommand(url, 'win32')).toEqual({
      command: 'rundll32.exe',
      args: ['url.dll,FileProtocolHandler', url],
    });
  });

  it('spawns without a shell, and never for a URL that fails the rule', () => {
    const calls: unknown[] = [];
    const spawn = (command: string, args: readonly string[], options: { shell?: unknown }) => {
      calls.push([command, args, options.shell]);
      return { on: () => undefined, unref: () => undefined };
    };
    openInBrowser(url, { platform: 'win32', spawn });
    expect(calls).toEqual([['rundll32.exe', ['url.dll,FileProtocolHandler', url], false]]);
    for (const bad of ['file:///etc/passwd', 'https://as.example/a|calc', 'http://as.example/'])
      expect(() => openInBrowser(bad, { spawn })).toThrow(UnsafeEndpointError);
    expect(calls).toHaveLength(1);
  });
});

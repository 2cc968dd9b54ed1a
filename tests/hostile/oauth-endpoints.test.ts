import {
  AuthError,
  LoopbackAuthorization,
  OAuthProvider,
  type SpawnLike,
  UnsafeEndpointError,
} from '@mcpkit/auth';
import { describe, expect, it } from 'vitest';
import { type HostileOptions, startOAuthHostileServer } from './servers/oauth-hostile-server.mjs';

/**
 * Finding 8 of issue #10: endpoints from metadata, challenges and redirects are hostile.
 * A real node:http server on 127.0.0.1 plays MCP server and authorization server and
 * hands the client bad endpoints; `login()` must refuse each with `UnsafeEndpointError`
 * before it sends a byte there, registers, or opens anything.
 */

interface Attempt {
  error: unknown;
  /** What the opener was given (it throws, so a wrongly opened URL ends the login). */
  opened: string[];
  /** Every URL the provider fetched. */
  fetched: string[];
  /** Method and path of every request the hostile server received. */
  seen: string[];
  base: string;
}

async function attempt(options: HostileOptions): Promise<Attempt> {
  await using server = await startOAuthHostileServer(options);
  const opened: string[] = [];
  const fetched: string[] = [];
  const provider = new OAuthProvider({
    serverUrl: server.url,
    serverName: 'hostile',
    fetch: (input, init) => {
      fetched.push(String(input));
      return fetch(input, init);
    },
    interactive: new LoopbackAuthorization({
      print: () => {},
      open: (url) => {
        opened.push(url);
        throw new Error('the test opener was called');
      },
    }),
  });
  const error = await provider.login().catch((e: unknown) => e);
  return {
    error,
    opened,
    fetched,
    seen: server.seen.map((r) => `${r.method} ${r.path}`),
    base: server.base,
  };
}

/** The refusal happened before any use: nothing opened, registered, or fetched elsewhere. */
function expectRefusedBeforeUse(a: Attempt, field: string) {
  expect(UnsafeEndpointError.isInstance(a.error), String(a.error)).toBe(true);
  expect(AuthError.isInstance(a.error)).toBe(true);
  const error = a.error as UnsafeEndpointError;
  expect(error.code).toBe('MCPKIT_AUTH_UNSAFE_ENDPOINT');
  expect(error.field).toBe(field);
  expect(error.message).toContain('server "hostile"');
  expect(error.message).toContain(field);
  expect(error.message).toMatch(/ask its operator|Fix /);
  // One line, whatever the value held.
  expect([...error.message].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
  expect(a.opened).toEqual([]);
  expect(a.seen.filter((l) => /\/(register|token|authorize)$/.test(l))).toEqual([]);
  for (const url of a.fetched) expect(url.startsWith(`${a.base}/`), url).toBe(true);
  return error;
}

describe('authorization_endpoint from metadata that must not be opened', () => {
  const cases: Array<[string, unknown]> = [
    ['a file: URL', 'file:///etc/passwd'],
    ['a javascript: URL', 'javascript:alert(document.cookie)'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['a pipe', 'https://as.example/authorize|calc.exe'],
    ['a double quote', 'https://as.example/authorize"&calc.exe&"'],
    ['spaces', 'https://as.example/authorize & start calc'],
    ['a newline', 'https://as.example/authorize\nhttps://evil.example/'],
    ['a tab', 'https://as.example/auth\torize'],
    ['a backslash', 'https://as.example\\@evil.example/authorize'],
    ['plain http to another host', 'http://as.example/authorize'],
    ['plain http to a host that only looks like loopback', 'http://127.0.0.1.nip.io/authorize'],
    ['a scheme-relative URL', '//as.example/authorize'],
    ['a number', 42],
    ['raw non-ASCII', 'https://аs.example/authorize'],
  ];
  for (const [what, value] of cases) {
    it(`refuses ${what} before opening anything`, async () => {
      const a = await attempt({ metadata: { authorization_endpoint: value } });
      expectRefusedBeforeUse(a, 'authorization_endpoint');
      // The metadata was the last thing fetched.
      expect(a.seen.at(-1)).toBe('GET /.well-known/oauth-authorization-server');
    });
  }

  it('refuses user info, and the password never appears in the message', async () => {
    const a = await attempt({
      metadata: { authorization_endpoint: 'https://admin:hunter2-password@as.example/authorize' },
    });
    const error = expectRefusedBeforeUse(a, 'authorization_endpoint');
    expect(error.message).toContain('user info');
    expect(error.message).not.toContain('hunter2-password');
    expect(error.value).not.toContain('hunter2-password');
  });

  it('shows a control character escaped, not raw', async () => {
    const a = await attempt({
      metadata: { authorization_endpoint: 'https://as.example/\u001b]52;c;cHduZWQ=\u0007' },
    });
    const error = expectRefusedBeforeUse(a, 'authorization_endpoint');
    expect(error.message).toContain('\\u001b');
    expect(error.message).not.toContain('\u001b');
  });
});

describe('other endpoints of the authorization-server metadata', () => {
  const cases: Array<[string, string]> = [
    ['token_endpoint', 'file:///etc/passwd'],
    ['registration_endpoint', 'http://169.254.169.254/latest/meta-data/'],
    ['jwks_uri', 'file:///etc/shadow'],
    ['revocation_endpoint', 'javascript:void(0)'],
    ['userinfo_endpoint', 'http://as.example/userinfo'],
  ];
  for (const [field, value] of cases) {
    it(`refuses ${field} = ${value} before registering or authorizing`, async () => {
      const a = await attempt({ metadata: { [field]: value } });
      expectRefusedBeforeUse(a, field);
    });
  }
});

describe('authorization_servers in the protected-resource metadata', () => {
  const cases: Array<[string, unknown, string]> = [
    ['a file: URL', ['file:///etc/passwd'], 'authorization_servers[0]'],
    ['plain http to a private address', ['http://10.0.0.1/'], 'authorization_servers[0]'],
    ['user info', ['https://u:secret-pass@as.example'], 'authorization_servers[0]'],
    ['a bad second entry', ['{base}', 'ftp://as.example'], 'authorization_servers[1]'],
  ];
  for (const [what, value, field] of cases) {
    it(`refuses ${what} before fetching any authorization-server metadata`, async () => {
      const a = await attempt({ authorizationServers: value });
      const error = expectRefusedBeforeUse(a, field);
      expect(error.message).not.toContain('secret-pass');
      expect(a.seen.some((l) => l.includes('oauth-authorization-server'))).toBe(false);
    });
  }

  it('a list that is not a list is an AuthError naming the field', async () => {
    const a = await attempt({ authorizationServers: 'file:///etc/passwd' });
    expect(AuthError.isInstance(a.error)).toBe(true);
    expect((a.error as Error).message).toContain('"authorization_servers"');
    expect(a.opened).toEqual([]);
  });
});

describe('the resource_metadata URL of a WWW-Authenticate challenge', () => {
  for (const value of [
    'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    'file:///etc/passwd',
    'https://user:pw-in-challenge@as.example/prm',
  ]) {
    it(`refuses ${value} without fetching it`, async () => {
      const a = await attempt({ challenge: value });
      const error = expectRefusedBeforeUse(a, 'resource_metadata');
      expect(error.message).not.toContain('pw-in-challenge');
      expect(a.seen).toEqual(['POST /mcp']);
    });
  }
});

describe('redirects of metadata requests', () => {
  for (const location of [
    'file:///etc/passwd',
    'http://example.com/.well-known/oauth-authorization-server',
  ]) {
    it(`a redirect to ${location} is not followed`, async () => {
      const a = await attempt({
        redirects: { '/.well-known/oauth-authorization-server': location },
      });
      const error = expectRefusedBeforeUse(a, 'the location of the authorization-server metadata');
      expect(error.message).toContain('a redirect from');
      expect(a.fetched).not.toContain(location);
    });
  }
});

describe('the system opener', () => {
  it('gets the checked URL as one argument of xdg-open, never a shell, and the flow completes', async () => {
    await using server = await startOAuthHostileServer({});
    const spawned: Array<{ command: string; args: readonly string[]; shell: unknown }> = [];
    const browser: Promise<unknown>[] = [];
    // Stands in for the browser the opener would start: it follows the redirects.
    const spawn: SpawnLike = (command, args, options) => {
      spawned.push({ command, args, shell: options.shell });
      browser.push(fetch(args.at(-1)!).then((r) => r.text()));
      return { on: () => undefined, unref: () => undefined };
    };
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      interactive: new LoopbackAuthorization({
        print: () => {},
        opener: { platform: 'linux', spawn },
      }),
    });
    await provider.login();
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.command).toBe('xdg-open');
    expect(spawned[0]!.shell).toBe(false);
    expect(spawned[0]!.args).toHaveLength(1);
    expect(spawned[0]!.args[0]!.startsWith(`${server.base}/authorize?`)).toBe(true);
    expect(await Promise.all(browser)).toEqual([expect.stringContaining('You can close this tab')]);
    expect((await provider.tokens())?.access_token).toMatch(/^hostile-access-token-/);
  });

  it('on Windows, the URL handler gets the URL as its own argument, not cmd /c start', async () => {
    await using server = await startOAuthHostileServer({});
    const spawned: Array<{ command: string; args: readonly string[] }> = [];
    const spawn: SpawnLike = (command, args) => {
      spawned.push({ command, args });
      void fetch(args.at(-1)!).then((r) => r.text());
      return { on: () => undefined, unref: () => undefined };
    };
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      interactive: new LoopbackAuthorization({
        print: () => {},
        opener: { platform: 'win32', spawn },
      }),
    });
    await provider.login();
    expect(spawned).toEqual([
      {
        command: 'rundll32.exe',
        args: [
          'url.dll,FileProtocolHandler',
          expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/),
        ],
      },
    ]);
  });

  it('is never started for a hostile authorization endpoint', async () => {
    await using server = await startOAuthHostileServer({
      metadata: { authorization_endpoint: 'file:///etc/passwd' },
    });
    const spawned: string[] = [];
    const provider = new OAuthProvider({
      serverUrl: server.url,
      serverName: 'hostile',
      interactive: new LoopbackAuthorization({
        print: () => {},
        opener: {
          spawn: (command) => {
            spawned.push(command);
            return { on: () => undefined, unref: () => undefined };
          },
        },
      }),
    });
    const error = await provider.login().catch((e: unknown) => e);
    expect(UnsafeEndpointError.isInstance(error)).toBe(true);
    expect(spawned).toEqual([]);
  });
});
